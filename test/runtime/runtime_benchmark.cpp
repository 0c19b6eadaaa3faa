// Benchmark of the runtime companion (not a test): the CPU probe's overhead
// on a small training step and the cost of reading the CUDA statistics.
//   ninja -C build runtime_benchmark && build/bin/runtime_benchmark
// Trace mode and the graph walk: --benchmark_filter="TrainStep|Alloc|GraphWalk"
#include <libtorch_tidy/cuda.h>
#include <libtorch_tidy/evidence.h>
#include <libtorch_tidy/history.h>
#include <libtorch_tidy/memory.h>

#include <benchmark/benchmark.h>
#include <torch/torch.h>

// Not including probe.h: it would install the counting allocator for the
// baseline too.
namespace libtorch_tidy::detail {
void probeSample(const char* file, int line, const std::vector<at::Tensor>* tensors);
}

namespace {

struct Step {
  torch::nn::Sequential net{torch::nn::Linear(64, 128), torch::nn::ReLU(), torch::nn::Linear(128, 10)};
  torch::optim::SGD sgd{net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9)};
  torch::Tensor x = torch::randn({64, 64});
  torch::Tensor y = torch::randint(0, 10, {64}, torch::kLong);
  torch::Tensor loss;
  void operator()() {
    sgd.zero_grad();
    loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    sgd.step();
  }
};

void BM_TrainStep(benchmark::State& state) {
  torch::set_num_threads(1);
  Step step;
  for (auto _ : state) step();
}
BENCHMARK(BM_TrainStep)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

void BM_TrainStepCountingAllocator(benchmark::State& state) {
  torch::set_num_threads(1);
  libtorch_tidy::ScopedCountingAllocator counting;
  Step step;
  for (auto _ : state) step();
}
BENCHMARK(BM_TrainStepCountingAllocator)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

void BM_TrainStepProbe(benchmark::State& state) {
  torch::set_num_threads(1);
  libtorch_tidy::ScopedCountingAllocator counting;
  Step step;
  for (auto _ : state) {
    step();
    libtorch_tidy::detail::probeSample(__FILE__, __LINE__, nullptr);
  }
}
BENCHMARK(BM_TrainStepProbe)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

void BM_TrainStepProbeWithHistory(benchmark::State& state) {
  torch::set_num_threads(1);
  libtorch_tidy::ScopedCountingAllocator counting;
  Step step;
  for (auto _ : state) {
    step();
    std::vector<at::Tensor> tensors{step.loss};
    libtorch_tidy::detail::probeSample(__FILE__, __LINE__, &tensors);
  }
}
BENCHMARK(BM_TrainStepProbeWithHistory)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

// Trace mode (LIBTORCH_TIDY_TRACE=1): a stack per allocation, and the probe
// reading the live bytes per stack. Goal: under 2x BM_TrainStep.
void BM_TrainStepTrace(benchmark::State& state) {
  torch::set_num_threads(1);
  libtorch_tidy::ScopedCountingAllocator counting;
  libtorch_tidy::setAllocationTracing(true);
  Step step;
  for (auto _ : state) {
    step();
    libtorch_tidy::detail::probeSample(__FILE__, __LINE__, nullptr);
  }
  libtorch_tidy::setAllocationTracing(false);
}
BENCHMARK(BM_TrainStepTrace)->Unit(benchmark::kMicrosecond)->MinTime(1.0);

// The graph walk of the evidence on a 10^6-node chain (a history carried over
// 10^6 iterations), uncapped and at the default cap.
void BM_GraphWalkMillionNodes(benchmark::State& state) {
  static torch::Tensor chain = [] {
    auto x = torch::ones({1}, torch::requires_grad());
    torch::Tensor y = x;
    for (int i = 0; i < 1000000; ++i) y = y + 1;
    return y;
  }();
  for (auto _ : state) {
    auto walk = libtorch_tidy::walkGraph({chain}, state.range(0));
    benchmark::DoNotOptimize(walk.nodes);
  }
}
BENCHMARK(BM_GraphWalkMillionNodes)->Arg(2000000)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(3);

// The pieces: one small tensor allocated and freed, without and with the
// counting allocator; one probe sample alone.
void BM_AllocFree(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(torch::empty({16}));
}
BENCHMARK(BM_AllocFree)->Unit(benchmark::kNanosecond);

void BM_AllocFreeCounting(benchmark::State& state) {
  libtorch_tidy::ScopedCountingAllocator counting;
  for (auto _ : state) benchmark::DoNotOptimize(torch::empty({16}));
}
BENCHMARK(BM_AllocFreeCounting)->Unit(benchmark::kNanosecond);

void BM_AllocFreeTraced(benchmark::State& state) {
  libtorch_tidy::ScopedCountingAllocator counting;
  libtorch_tidy::setAllocationTracing(true);
  for (auto _ : state) benchmark::DoNotOptimize(torch::empty({16}));
  libtorch_tidy::setAllocationTracing(false);
}
BENCHMARK(BM_AllocFreeTraced)->Unit(benchmark::kNanosecond);

void BM_ProbeSampleAlone(benchmark::State& state) {
  libtorch_tidy::ScopedCountingAllocator counting;
  for (auto _ : state) libtorch_tidy::detail::probeSample("alone", 1, nullptr);
}
BENCHMARK(BM_ProbeSampleAlone)->Unit(benchmark::kNanosecond)->Iterations(200000);

void BM_CudaStatsRead(benchmark::State& state) {
  if (!libtorch_tidy::cudaStatsCompiled() || !torch::cuda::is_available()) {
    state.SkipWithError("no CUDA (runtime without CUDA support or no GPU)");
    return;
  }
  auto warm = torch::ones({1}, torch::kCUDA);
  for (auto _ : state) benchmark::DoNotOptimize(libtorch_tidy::cudaMemoryStats());
}
BENCHMARK(BM_CudaStatsRead)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
