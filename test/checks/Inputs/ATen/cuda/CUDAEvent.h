// Mock of <ATen/cuda/CUDAEvent.h>.
#pragma once
#include "../../c10/cuda/CUDAStream.h"
namespace at {
namespace cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
struct CUDAEvent {
  CUDAEvent();
  CUDAEvent(unsigned int flags);
  void record();
  void record(const CUDAStream &stream);
  void synchronize() const;
  float elapsed_time(const CUDAEvent &other) const;
};
} // namespace cuda
} // namespace at
