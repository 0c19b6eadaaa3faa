// CUDA caching-allocator statistics, when the runtime is built against a
// LibTorch with CUDA (LIBTORCH_TIDY_WITH_CUDA, set by CMake). The reading never
// creates a CUDA context: it needs the device's primary context to exist (the
// program has used CUDA), so CPU-only runs on a GPU machine stay CPU-only.
#include <libtorch_tidy/cuda.h>

#if LIBTORCH_TIDY_WITH_CUDA
#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/version.h>
#endif

namespace libtorch_tidy {

#if LIBTORCH_TIDY_WITH_CUDA
namespace {

// The device to read, or -1 when CUDA is unusable or unused on it.
int readyDevice(int device) {
  try {
    if (c10::cuda::device_count() <= 0) return -1;
    if (device < 0) device = c10::cuda::current_device();
    if (!at::detail::getCUDAHooks().hasPrimaryContext(device)) return -1;
    // Cheap once done; makes sure the caching allocator is initialised.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 6)
    at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
#else
    at::globalContext().lazyInitCUDA();
#endif
    return device;
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

bool cudaStatsCompiled() { return true; }

std::optional<CudaMemoryStats> cudaMemoryStats(int device) {
  device = readyDevice(device);
  if (device < 0) return std::nullopt;
  // 1.13 - 2.x: the same free function (a wrapper of the device allocator's
  // getDeviceStats in recent versions); index 0 is the aggregate pool.
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(device));
  CudaMemoryStats out;
  out.device = device;
  out.allocated_bytes = stats.allocated_bytes[0].current;
  out.peak_allocated_bytes = stats.allocated_bytes[0].peak;
  out.reserved_bytes = stats.reserved_bytes[0].current;
  out.peak_reserved_bytes = stats.reserved_bytes[0].peak;
  out.alloc_retries = stats.num_alloc_retries;
  out.ooms = stats.num_ooms;
  return out;
}

void resetCudaPeak(int device) {
  device = readyDevice(device);
  if (device < 0) return;
  c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(device));
}

#else

bool cudaStatsCompiled() { return false; }
std::optional<CudaMemoryStats> cudaMemoryStats(int) { return std::nullopt; }
void resetCudaPeak(int) {}

#endif

}  // namespace libtorch_tidy
