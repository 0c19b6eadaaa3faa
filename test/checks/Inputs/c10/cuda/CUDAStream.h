// Mock of <c10/cuda/CUDAStream.h> (and the cuda_runtime_api.h declarations it
// brings): a stream's synchronize() waits on the host.
#pragma once
#include "../../torch/mock_core.h"
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
using DeviceIndex = int8_t;
class Stream {
public:
  void synchronize() const;
};
namespace cuda {
class CUDAStream {
public:
  void synchronize() const;
  bool query() const;
  cudaStream_t stream() const;
  operator cudaStream_t() const;
};
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
} // namespace cuda
} // namespace c10
