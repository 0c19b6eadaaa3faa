// libtorch-tidy runtime: statistics of LibTorch's CUDA caching allocator.
// Available when the runtime was built against a LibTorch with CUDA
// (cudaStatsCompiled()); they read nothing on a machine without a GPU or in a
// process that has not used CUDA yet (no CUDA context is created for them).
#pragma once

#include <cstdint>
#include <optional>

namespace libtorch_tidy {

struct CudaMemoryStats {
  int device = 0;
  int64_t allocated_bytes = 0;       // bytes of live tensors (caching allocator, current)
  int64_t peak_allocated_bytes = 0;  // peak of allocated_bytes since the last resetCudaPeak()
  int64_t reserved_bytes = 0;        // bytes held from cudaMalloc, live tensors and cache together
  int64_t peak_reserved_bytes = 0;
  int64_t alloc_retries = 0;         // cudaMalloc failures that flushed the cache and retried
  int64_t ooms = 0;                  // out-of-memory errors raised
};

// True when the runtime was compiled with CUDA support.
bool cudaStatsCompiled();
// The statistics of `device` (-1: the current device), or nothing when the
// runtime has no CUDA support, no GPU is present, or CUDA is not initialised
// on that device in this process.
std::optional<CudaMemoryStats> cudaMemoryStats(int device = -1);
// Resets the peaks of `device` (-1: the current device); no-op without CUDA.
void resetCudaPeak(int device = -1);

}  // namespace libtorch_tidy
