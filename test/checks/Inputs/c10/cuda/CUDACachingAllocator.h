// Mock of <c10/cuda/CUDACachingAllocator.h>.
#pragma once
#include "../../torch/mock_core.h"
namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {
void emptyCache();
// LibTorch 2.x: the allocator object behind get() (1.13 returns c10::Allocator*).
class CUDAAllocator {
public:
  virtual ~CUDAAllocator();
  virtual void emptyCache() = 0;
  virtual void cacheInfo(int dev_id, size_t *largestBlock) = 0;
};
CUDAAllocator *get();
struct DeviceStats {};
DeviceStats getDeviceStats(int device);
} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10
