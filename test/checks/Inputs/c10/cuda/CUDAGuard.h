// Mock of <c10/cuda/CUDAGuard.h> (LibTorch 1.13 .. 2.x).
#pragma once
#include "CUDAStream.h"
namespace c10 {
namespace cuda {
struct CUDAGuard {
  explicit CUDAGuard() = delete;
  explicit CUDAGuard(DeviceIndex device_index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard &) = delete;
  ~CUDAGuard();
  void set_device(Device device);
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard() = delete;
  explicit CUDAStreamGuard(Stream stream);
  ~CUDAStreamGuard();
  CUDAStreamGuard(const CUDAStreamGuard &) = delete;
  void reset_stream(Stream stream);
  CUDAStream original_stream() const;
  CUDAStream current_stream() const;
};
struct OptionalCUDAStreamGuard {
  explicit OptionalCUDAStreamGuard() = default;
  explicit OptionalCUDAStreamGuard(Stream stream);
  explicit OptionalCUDAStreamGuard(optional<Stream> stream_opt);
  ~OptionalCUDAStreamGuard();
  void reset_stream(Stream stream);
};
struct CUDAMultiStreamGuard {
  explicit CUDAMultiStreamGuard(ArrayRef<CUDAStream> streams);
  CUDAMultiStreamGuard(const CUDAMultiStreamGuard &) = delete;
  ~CUDAMultiStreamGuard();
};
} // namespace cuda
} // namespace c10
