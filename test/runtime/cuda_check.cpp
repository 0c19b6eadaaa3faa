// CUDA check of the runtime without GoogleTest (GPU machines may lack it):
// statistics are read, a leak on the device reads as growing, a clean step
// as flat, and one statistics read is timed. Exit status 0 when all hold or
// when there is no GPU (says so).
#include <libtorch_tidy/runtime.h>

#include <torch/torch.h>

#include <chrono>
#include <cstdio>

int main() {
  namespace lt = libtorch_tidy;
  if (!lt::cudaStatsCompiled() || !torch::cuda::is_available()) {
    std::printf("cuda-check: skipped (%s)\n", lt::cudaStatsCompiled() ? "no GPU" : "runtime without CUDA");
    return 0;
  }
  int failures = 0;
  auto warm = torch::ones({1}, torch::kCUDA);
  if (!lt::cudaMemoryStats()) {
    std::printf("cuda-check: FAIL no statistics after CUDA use\n");
    return 1;
  }
  const int reads = 20000;
  auto start = std::chrono::steady_clock::now();
  int64_t sum = 0;
  for (int i = 0; i < reads; ++i) sum += lt::cudaMemoryStats()->allocated_bytes;
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / reads;
  std::printf("cuda-check: one CUDA statistics read: %.0f ns (%d reads, %lld)\n", ns, reads,
              static_cast<long long>(sum % 7));
  std::vector<torch::Tensor> kept;
  auto leak = lt::measureLoop([&] { kept.push_back(torch::ones({256}, torch::kCUDA)); });
  auto a = lt::analyze(leak);
  std::printf("%s", lt::toTable(leak, a).c_str());
  if (a.verdict != lt::Verdict::Growing || !a.cuda_bytes.growing) {
    std::printf("cuda-check: FAIL 1 KiB per iteration on the device not read as growing\n");
    ++failures;
  }
  auto clean = lt::measureLoop([&] { auto t = (torch::randn({1 << 16}, torch::kCUDA) * 2).sum(); });
  auto b = lt::analyze(clean);
  if (b.verdict != lt::Verdict::Flat) {
    std::printf("%scuda-check: FAIL a clean step read as growing\n", lt::toTable(clean, b).c_str());
    ++failures;
  }
  std::printf("cuda-check: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
