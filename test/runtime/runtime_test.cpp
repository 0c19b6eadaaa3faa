// GoogleTest of the runtime companion (CPU; the CUDA cases skip without a GPU).
#include <libtorch_tidy/gtest.h>
#include <libtorch_tidy/runtime.h>

#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

namespace lt = libtorch_tidy;

namespace {

lt::Series seriesOf(const std::vector<double>& bytes, int warmup = 0) {
  lt::Series s;
  s.warmup = warmup;
  for (size_t i = 0; i < bytes.size(); ++i) {
    lt::Sample x;
    x.iteration = int64_t(i);
    x.cpu_live_bytes = int64_t(bytes[i]);
    s.samples.push_back(x);
  }
  return s;
}

// A small classifier and its optimizer: a clean training step.
struct Net : torch::nn::Module {
  Net() : fc1(register_module("fc1", torch::nn::Linear(16, 64))), fc2(register_module("fc2", torch::nn::Linear(64, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};

}  // namespace

TEST(CountingAllocator, CountsLiveBytesAndRestoresTheAllocator) {
  c10::Allocator* before = c10::GetCPUAllocator();
  {
    lt::ScopedCountingAllocator counting;
    EXPECT_TRUE(lt::countingAllocatorInstalled());
    EXPECT_NE(c10::GetCPUAllocator(), before);
    auto start = lt::cpuMemoryStats();
    {
      auto t = torch::empty({1000}, torch::kFloat);
      auto during = lt::cpuMemoryStats();
      EXPECT_EQ(during.live_bytes - start.live_bytes, 4000);
      EXPECT_EQ(during.allocations - start.allocations, 1);
      EXPECT_GE(during.peak_bytes, during.live_bytes);
    }
    auto end = lt::cpuMemoryStats();
    EXPECT_EQ(end.live_bytes, start.live_bytes);
    EXPECT_EQ(end.frees - start.frees, 1);
  }
  EXPECT_FALSE(lt::countingAllocatorInstalled());
  EXPECT_EQ(c10::GetCPUAllocator(), before);
}

TEST(CountingAllocator, NestedInstallsAndFreesAcrossSwaps) {
  auto outside = torch::ones({256});  // allocated before install: never counted
  int64_t base;
  torch::Tensor inside;
  {
    lt::ScopedCountingAllocator a;
    {
      lt::ScopedCountingAllocator b;
      base = lt::cpuMemoryStats().live_bytes;
      inside = torch::ones({512});
    }
    EXPECT_TRUE(lt::countingAllocatorInstalled());  // still held by `a`
    outside.reset();                                // freed while installed: not ours, no crash
    EXPECT_EQ(lt::cpuMemoryStats().live_bytes, base + 2048);
  }
  EXPECT_FALSE(lt::countingAllocatorInstalled());
  inside.reset();  // allocated while installed, freed after: still counted
  EXPECT_EQ(lt::cpuMemoryStats().live_bytes, base);
}

TEST(CountingAllocator, RawInterfaceUsedByOneDNN) {
  c10::Allocator* plain = c10::GetCPUAllocator();
  void* early = plain->raw_allocate(4096);  // before install
  lt::ScopedCountingAllocator counting;
  c10::Allocator* alloc = c10::GetCPUAllocator();
  int64_t base = lt::cpuMemoryStats().live_bytes;
  void* p = alloc->raw_allocate(1000);
  EXPECT_EQ(lt::cpuMemoryStats().live_bytes, base + 1000);
  alloc->raw_deallocate(p);
  alloc->raw_deallocate(early);  // through the wrapper, to the inner allocator
  EXPECT_EQ(lt::cpuMemoryStats().live_bytes, base);
}

TEST(CountingAllocator, ThreadSafe) {
  lt::ScopedCountingAllocator counting;
  auto start = lt::cpuMemoryStats();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 2000; ++i) {
        auto x = torch::empty({int64_t(1 + i % 97)}, torch::kFloat);
      }
    });
  for (auto& t : threads) t.join();
  auto end = lt::cpuMemoryStats();
  EXPECT_EQ(end.live_bytes, start.live_bytes);
  EXPECT_EQ(end.allocations - start.allocations, 8000);
  EXPECT_EQ(end.frees - start.frees, 8000);
}

TEST(History, CountsReachableNodesOnce) {
  auto x = torch::ones({3}, torch::requires_grad());
  EXPECT_EQ(lt::historySize(x), 0);  // a leaf has no grad_fn
  auto y = x * 2;                    // MulBackward -> AccumulateGrad(x)
  auto z = y.sum();                  // SumBackward -> MulBackward
  EXPECT_EQ(lt::historySize(y), 2);
  EXPECT_EQ(lt::historySize(z), 3);
  EXPECT_EQ(lt::historySize(std::vector<at::Tensor>{y, z}), 3);  // union
  EXPECT_EQ(lt::historySize(z.detach()), 0);
  EXPECT_EQ(lt::historySize(torch::Tensor()), 0);
}

TEST(History, GrowsWithAnAccumulatedLossAfterBackward) {
  Net net;
  torch::Tensor total = torch::zeros({});
  std::vector<int64_t> sizes;
  for (int i = 0; i < 4; ++i) {
    auto loss = net.forward(torch::randn({8, 16})).pow(2).mean();
    loss.backward();
    total += loss;  // keeps each graph's nodes although backward freed their buffers
    sizes.push_back(lt::historySize(total));
  }
  for (size_t i = 1; i < sizes.size(); ++i) EXPECT_GT(sizes[i], sizes[i - 1]);
}

TEST(Slope, TheilSenIsRobustToJumps) {
  EXPECT_DOUBLE_EQ(lt::theilSenSlope({0, 2, 4, 6, 8}), 2.0);
  EXPECT_DOUBLE_EQ(lt::theilSenSlope({5, 5, 5, 5}), 0.0);
  // one cache jump in a flat series
  std::vector<double> y(40, 1000.0);
  for (size_t i = 3; i < y.size(); ++i) y[i] += 65536;
  EXPECT_DOUBLE_EQ(lt::theilSenSlope(y), 0.0);
  // outliers in a linear series
  std::vector<double> z;
  for (int i = 0; i < 40; ++i) z.push_back(1024.0 * i + (i % 10 == 0 ? 1e6 : 0));
  EXPECT_NEAR(lt::theilSenSlope(z), 1024.0, 1.0);
  EXPECT_DOUBLE_EQ(lt::increasingShare({1, 2, 3}), 1.0);
  EXPECT_DOUBLE_EQ(lt::increasingShare({3, 3, 3}), 0.0);
}

TEST(Analysis, VerdictsAndThreshold) {
  std::vector<double> flat(50, 4096), leak, small, sawtooth, cache(50, 1 << 20);
  for (int i = 0; i < 50; ++i) {
    leak.push_back(8192 + 1024.0 * i);   // exactly the threshold
    small.push_back(8192 + 512.0 * i);   // below it
    sawtooth.push_back(1 << 20 | (i % 4) * 4096);  // a cache cycling, no trend
  }
  for (int i = 10; i < 50; ++i) cache[i] += 1 << 20;  // a cache filled once
  EXPECT_EQ(lt::analyze(seriesOf(flat, 5)).verdict, lt::Verdict::Flat);
  EXPECT_EQ(lt::analyze(seriesOf(leak, 5)).verdict, lt::Verdict::Growing);
  EXPECT_EQ(lt::analyze(seriesOf(small, 5)).verdict, lt::Verdict::Flat);
  EXPECT_EQ(lt::analyze(seriesOf(sawtooth, 5)).verdict, lt::Verdict::Flat);
  EXPECT_EQ(lt::analyze(seriesOf(cache, 5)).verdict, lt::Verdict::Flat);
  auto a = lt::analyze(seriesOf(leak, 5));
  EXPECT_NEAR(a.cpu_bytes.slope, 1024.0, 1e-9);
  EXPECT_EQ(a.measured, 45u);
}

TEST(Analysis, Comparisons) {
  std::vector<double> flat(50, 4096), leak, fast;
  for (int i = 0; i < 50; ++i) {
    leak.push_back(4096.0 * i);
    fast.push_back(16384.0 * i);
  }
  EXPECT_EQ(lt::compare(seriesOf(leak), seriesOf(flat)).outcome, lt::Outcome::Fixed);
  EXPECT_EQ(lt::compare(seriesOf(leak), seriesOf(leak)).outcome, lt::Outcome::NotFixed);
  EXPECT_EQ(lt::compare(seriesOf(flat), seriesOf(leak)).outcome, lt::Outcome::Regressed);
  EXPECT_EQ(lt::compare(seriesOf(leak), seriesOf(fast)).outcome, lt::Outcome::Regressed);
  EXPECT_EQ(lt::compare(seriesOf(flat), seriesOf(flat)).outcome, lt::Outcome::NoGrowthObserved);
  auto c = lt::compare(seriesOf(leak), seriesOf(flat));
  EXPECT_NE(lt::toTable(c).find("outcome: fixed"), std::string::npos);
  EXPECT_NE(lt::toJson(c).find("\"outcome\":\"fixed\""), std::string::npos);
}

TEST(Report, TableAndJson) {
  auto s = seriesOf({1, 2, 3, 4}, 1);
  s.name = "loop \"a\"";
  auto a = lt::analyze(s);
  std::string json = lt::toJson(s, a);
  EXPECT_NE(json.find("\"name\":\"loop \\\"a\\\"\""), std::string::npos);
  EXPECT_NE(json.find("\"samples\":[{\"iteration\":0"), std::string::npos);
  EXPECT_NE(json.find("\"verdict\":\"flat\""), std::string::npos);
  EXPECT_NE(lt::toTable(s, a).find("verdict: flat"), std::string::npos);
}

TEST(MeasureLoop, DetectsOneKiBPerIterationWithinFiftyIterations) {
  std::vector<torch::Tensor> kept;
  auto series = lt::measureLoop([&] { kept.push_back(torch::ones({256})); });  // 1 KiB each
  EXPECT_EQ(series.samples.size(), 50u);
  auto a = lt::analyze(series);
  EXPECT_EQ(a.verdict, lt::Verdict::Growing) << lt::toTable(series, a);
  EXPECT_NEAR(a.cpu_bytes.slope, 1024.0, 1.0);
}

TEST(MeasureLoop, CleanTrainingStepsAreFlat) {
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  auto x = torch::randn({32, 16});
  auto y = torch::randint(0, 4, {32}, torch::kLong);
  EXPECT_NO_MEMORY_GROWTH([&] {
    sgd.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    loss.backward();
    sgd.step();
  });
  auto net2 = std::make_shared<Net>();
  torch::optim::Adam adam(net2->parameters(), torch::optim::AdamOptions(1e-3));
  EXPECT_NO_MEMORY_GROWTH([&] {
    adam.zero_grad();
    auto loss = torch::mse_loss(net2->forward(x), torch::zeros({32, 4}));
    loss.backward();
    adam.step();
  });
}

TEST(MeasureLoop, ConvolutionStepIsFlat) {
  // Convolutions go through oneDNN (mkldnn) on CPU when LibTorch has it: its
  // caches and scratch buffers must not read as growth.
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)), torch::nn::ReLU(),
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3).padding(1)),
                            torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(), torch::nn::Linear(8, 2));
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01));
  auto x = torch::randn({4, 3, 16, 16});
  auto y = torch::randint(0, 2, {4}, torch::kLong);
  EXPECT_NO_MEMORY_GROWTH([&] {
    sgd.zero_grad();
    torch::nn::functional::cross_entropy(net->forward(x), y).backward();
    sgd.step();
  });
  torch::NoGradGuard no_grad;
  EXPECT_NO_MEMORY_GROWTH([&] { net->forward(torch::randn({8, 3, 16, 16})); });
}

TEST(MeasureLoop, AccumulatedHistoryGrowsThroughItsGraph) {
  torch::manual_seed(0);
  auto net = std::make_shared<Net>();
  torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.01));
  auto x = torch::randn({32, 16});
  torch::Tensor total = torch::zeros({});
  lt::MeasureOptions options;
  options.history_of = [&] { return std::vector<at::Tensor>{total}; };
  auto step = [&](bool detach) {
    sgd.zero_grad();
    auto loss = net->forward(x).pow(2).mean();
    loss.backward();
    sgd.step();
    total += detach ? loss.detach() : loss;
  };
  ::testing::AssertionResult grows = lt::testing::MemoryGrowth([&] { step(false); }, options);
  EXPECT_TRUE(grows);
  // The table names the culprit: the graph kept per step, node type by node type.
  std::string table = grows.message();
  EXPECT_NE(table.find("culprit: retained graph +8 nodes/it: AddBackward0"), std::string::npos) << table;
  EXPECT_NE(table.find("retained graph: AddBackward0 +1/it -> MeanBackward0 +1/it -> PowBackward0 +1/it -> "
                       "AddmmBackward0 +2/it"),
            std::string::npos)
      << table;
  total = torch::zeros({});
  EXPECT_NO_MEMORY_GROWTH([&] { step(true); }, options);
}

TEST(Cuda, AllocatorStatistics) {
  if (!lt::cudaStatsCompiled()) GTEST_SKIP() << "runtime built without CUDA";
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no GPU";
  auto warm = torch::ones({1}, torch::kCUDA);  // creates the context
  auto before = lt::cudaMemoryStats();
  ASSERT_TRUE(before.has_value());
  auto t = torch::empty({1 << 20}, torch::TensorOptions().device(torch::kCUDA));
  auto after = lt::cudaMemoryStats();
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(after->allocated_bytes - before->allocated_bytes, 4 << 20);
  EXPECT_GE(after->reserved_bytes, after->allocated_bytes);
  EXPECT_GE(after->peak_allocated_bytes, after->allocated_bytes);
}

TEST(Cuda, LeakAndCleanStepOnTheDevice) {
  if (!lt::cudaStatsCompiled() || !torch::cuda::is_available()) GTEST_SKIP() << "no CUDA";
  auto warm = torch::ones({1}, torch::kCUDA);
  std::vector<torch::Tensor> kept;
  EXPECT_MEMORY_GROWTH([&] { kept.push_back(torch::ones({1024}, torch::kCUDA)); });
  EXPECT_NO_MEMORY_GROWTH([&] { auto t = torch::ones({1 << 16}, torch::kCUDA) * 2; });
}

TEST(Cuda, NothingWithoutCuda) {
  if (lt::cudaStatsCompiled() && torch::cuda::is_available()) GTEST_SKIP() << "CUDA present";
  EXPECT_FALSE(lt::cudaMemoryStats().has_value());
  lt::resetCudaPeak();  // a no-op
}
