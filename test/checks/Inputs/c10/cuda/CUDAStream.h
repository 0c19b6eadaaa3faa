// Mock of <c10/cuda/CUDAStream.h> (LibTorch 1.13 .. 2.x: the same functions;
// at::cuda reaches them through `namespace at::cuda { using namespace
// c10::cuda; }` of c10/macros/Macros.h, torch/headeronly/macros/Macros.h in
// 2.x), and the cuda_runtime_api.h declarations it brings: the host
// synchronisations.
#pragma once
#include "../core/Stream.h"
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError { cudaSuccess = 0 };
typedef enum cudaError cudaError_t;
extern "C" {
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
}
namespace c10 {
namespace cuda {
class CUDAStream {
public:
  enum Unchecked { UNCHECKED };
  explicit CUDAStream(Stream stream);
  explicit CUDAStream(Unchecked, Stream stream);
  bool operator==(const CUDAStream &other) const noexcept;
  bool operator!=(const CUDAStream &other) const noexcept;
  operator cudaStream_t() const;
  operator Stream() const;
  DeviceIndex device_index() const;
  Device device() const;
  StreamId id() const;
  bool query() const;
  void synchronize() const;
  int priority() const;
  cudaStream_t stream() const;
  Stream unwrap() const;
};
CUDAStream getStreamFromPool(const bool isHighPriority = false, DeviceIndex device = -1);
CUDAStream getStreamFromPool(const int priority, DeviceIndex device = -1);
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
void setCurrentCUDAStream(CUDAStream stream);
} // namespace cuda
} // namespace c10
namespace at {
namespace cuda {
using namespace c10::cuda;
} // namespace cuda
} // namespace at
