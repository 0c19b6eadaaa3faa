#include <libtorch_tidy/probe.h>
#include <libtorch_tidy/runtime.h>

#include <torch/torch.h>

#include <cstdio>

int main() {
  std::vector<torch::Tensor> kept;
  for (int i = 0; i < 10; ++i) {
    kept.push_back(torch::ones({1024}));
    LIBTORCH_TIDY_ITERATION(kept);
  }
  std::printf("live %lld\n", static_cast<long long>(libtorch_tidy::cpuMemoryStats().live_bytes));
  return libtorch_tidy::cpuMemoryStats().live_bytes >= 10 * 4096 ? 0 : 1;
}
