// Side-stream work that switches back by hand: an exception from the copy or
// the kernels between leaves the caller on the side stream. The fix-its give
// each region a c10::cuda::CUDAStreamGuard scope (adding <c10/cuda/CUDAGuard.h>),
// which must compile against the real c10/cuda headers of LibTorch 2.x.
// Needs the CUDA toolkit's headers (cuda_runtime_api.h) to parse; never run:
// scripts/test-torch2.sh analyses it, applies the fixes and compiles the result
// with -fsyntax-only.
// Each line after "expect-fixed: " must be a whole line of the fixed program.
// expect-fixed: #include <c10/cuda/CUDAGuard.h>
// expect-fixed:   auto side = c10::cuda::getStreamFromPool();
// expect-fixed:   c10::cuda::CUDAStreamGuard stream_guard(side);
// expect-fixed:     c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromPool());
#include <torch/torch.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdio>

// The previous stream saved, a pool stream made current, a copy that may
// throw, the previous stream back: the fix replaces the pair with a guard and
// drops `prev`, whose only use was the restore.
void copy_async(torch::Tensor dst, torch::Tensor src) {
  c10::cuda::CUDAStream prev = c10::cuda::getCurrentCUDAStream();
  auto side = c10::cuda::getStreamFromPool();
  c10::cuda::setCurrentCUDAStream(side);
  dst.copy_(src, /*non_blocking=*/true);
  c10::cuda::setCurrentCUDAStream(prev);
}

// Work after the restore: the guarded pair becomes an inner block, and the
// saved stream stays (it is printed afterwards).
int64_t scale_then_sum(torch::Tensor a, torch::Tensor b) {
  auto prev = c10::cuda::getCurrentCUDAStream();
  c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
  a.mul_(2);
  b.add_(a);
  c10::cuda::setCurrentCUDAStream(prev);
  std::printf("back on stream %lld\n", static_cast<long long>(prev.id()));
  return b.sum().item<int64_t>();
}

int main() {
  auto opts = torch::TensorOptions().device(torch::kCUDA);
  auto a = torch::ones({4}, opts);
  auto b = torch::zeros({4}, opts);
  copy_async(b, a);
  return scale_then_sum(a, b) == 12 ? 0 : 1;
}
