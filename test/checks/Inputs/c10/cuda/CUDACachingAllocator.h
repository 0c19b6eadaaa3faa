// Mock of <c10/cuda/CUDACachingAllocator.h>.
#pragma once
#include "../../torch/mock_core.h"
namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {
void emptyCache();
struct DeviceStats {};
DeviceStats getDeviceStats(int device);
} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10
