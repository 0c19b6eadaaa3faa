// GoogleTest of libtorch_tidy::amp (AutocastGuard, GradScaler). CPU always;
// the CUDA cases skip without a GPU.
#include <libtorch_tidy/amp.h>
#include <libtorch_tidy/memory.h>

#include <ATen/autocast_mode.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <limits>
#include <sstream>
#include <stdexcept>

namespace amp = libtorch_tidy::amp;

namespace {

// The autocast nesting counter of this thread (LibTorch has no getter).
int nesting() {
  int n = at::autocast::increment_nesting();
  at::autocast::decrement_nesting();
  return n - 1;
}

// Sets a device's raw autocast flag and dtype, as hand-rolled code does.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
void setRaw(c10::DeviceType t, bool on, c10::ScalarType dtype) {
  at::autocast::set_autocast_enabled(t, on);
  at::autocast::set_autocast_dtype(t, dtype);
}
#else
void setRaw(c10::DeviceType t, bool on, c10::ScalarType dtype) {
  if (t == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(on);
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_enabled(on);
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
}
#endif

// The dtype a float32 matmul produces on the CPU right now: bfloat16 under CPU autocast.
c10::ScalarType cpuMatmulDtype() {
  auto a = torch::ones({4, 4});
  return torch::mm(a, a).scalar_type();
}

struct AutocastDefaults : ::testing::Test {
  void TearDown() override {
    // Every test must leave this thread as it found it.
    EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CPU));
    EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CUDA));
    EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CPU), c10::kBFloat16);
    EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CUDA), c10::kHalf);
    EXPECT_TRUE(at::autocast::is_autocast_cache_enabled());
    EXPECT_EQ(nesting(), 0);
  }
};

}  // namespace

using AutocastGuardTest = AutocastDefaults;

TEST_F(AutocastGuardTest, CpuScopeCastsMatmulsAndEndsWithTheScope) {
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
  {
    amp::AutocastGuard autocast(c10::DeviceType::CPU, c10::kBFloat16);
    EXPECT_TRUE(autocast.enabled());
    EXPECT_TRUE(amp::isAutocastEnabled(c10::DeviceType::CPU));
    EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CUDA));  // only its own device
    EXPECT_EQ(nesting(), 1);
    EXPECT_EQ(cpuMatmulDtype(), c10::kBFloat16);
  }
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
}

TEST_F(AutocastGuardTest, RestoresTheStateWhenAnExceptionLeavesTheScope) {
  try {
    amp::AutocastGuard autocast(c10::DeviceType::CPU, c10::kBFloat16, true, /*cache_enabled=*/false);
    EXPECT_FALSE(at::autocast::is_autocast_cache_enabled());
    throw std::runtime_error("batch failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
  // TearDown checks flag, dtype, cache flag and nesting.
}

TEST_F(AutocastGuardTest, NestsAndADisabledInnerScopeRunsInFloat) {
  {
    amp::AutocastGuard outer(c10::DeviceType::CPU, c10::kBFloat16);
    {
      amp::AutocastGuard inner(c10::DeviceType::CPU, c10::kBFloat16, /*enabled=*/false);
      EXPECT_EQ(nesting(), 2);
      EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CPU));
      EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
    }
    EXPECT_EQ(nesting(), 1);
    EXPECT_TRUE(amp::isAutocastEnabled(c10::DeviceType::CPU));
    EXPECT_EQ(cpuMatmulDtype(), c10::kBFloat16);
  }
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
}

TEST_F(AutocastGuardTest, RestoresAHandRolledStateExactly) {
  // CPU autocast switched on by hand before the scope comes back on after it.
  setRaw(c10::DeviceType::CPU, true, c10::kBFloat16);
  {
    amp::AutocastGuard off(c10::DeviceType::CPU, c10::kBFloat16, /*enabled=*/false);
    EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CPU));
    EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
  }
  EXPECT_TRUE(amp::isAutocastEnabled(c10::DeviceType::CPU));
  EXPECT_EQ(cpuMatmulDtype(), c10::kBFloat16);
  setRaw(c10::DeviceType::CPU, false, c10::kBFloat16);
  // The dtype comes back too (CUDA: 1.13 accepts only bfloat16 for the CPU).
  setRaw(c10::DeviceType::CUDA, false, c10::kBFloat16);
  {
    amp::AutocastGuard autocast(c10::DeviceType::CUDA, c10::kHalf);
    EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CUDA), c10::kHalf);
  }
  EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CUDA), c10::kBFloat16);
  setRaw(c10::DeviceType::CUDA, false, c10::kHalf);
}

TEST_F(AutocastGuardTest, CastCacheIsReleasedWhenTheOutermostScopeEnds) {
  // The bfloat16 copy of a float32 weight (a leaf that requires grad) is cached
  // while autocast scopes are open: 256 x 256 x 2 bytes.
  auto weight = torch::ones({256, 256}, torch::requires_grad());
  auto x = torch::ones({1, 256});
  const int64_t cast_bytes = 256 * 256 * 2;
  libtorch_tidy::ScopedCountingAllocator counting;
  const int64_t base = libtorch_tidy::cpuMemoryStats().live_bytes;
  {
    amp::AutocastGuard outer(c10::DeviceType::CPU, c10::kBFloat16);
    {
      amp::AutocastGuard inner(c10::DeviceType::CPU, c10::kBFloat16);
      auto y = torch::mm(x, weight);  // y and the cast x are freed with the scope
    }
    // The inner scope ended inside another one: the cast weight stays cached.
    EXPECT_GE(libtorch_tidy::cpuMemoryStats().live_bytes - base, cast_bytes);
  }
  EXPECT_EQ(libtorch_tidy::cpuMemoryStats().live_bytes, base);
}

TEST_F(AutocastGuardTest, CacheDisabledKeepsNoCastWeight) {
  auto weight = torch::ones({256, 256}, torch::requires_grad());
  auto x = torch::ones({1, 256});
  libtorch_tidy::ScopedCountingAllocator counting;
  const int64_t base = libtorch_tidy::cpuMemoryStats().live_bytes;
  {
    amp::AutocastGuard outer(c10::DeviceType::CPU, c10::kBFloat16, true, /*cache_enabled=*/false);
    { auto y = torch::mm(x, weight); }
    EXPECT_EQ(libtorch_tidy::cpuMemoryStats().live_bytes, base);
  }
}

TEST_F(AutocastGuardTest, UnsupportedCpuDtypeDisablesTheScopeLikePython) {
  amp::AutocastGuard autocast(c10::DeviceType::CPU, c10::kDouble);  // warns
  EXPECT_FALSE(autocast.enabled());
  EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CPU));
  EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CPU), c10::kBFloat16);  // left as it was
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
  EXPECT_EQ(nesting(), 1);  // still a scope
}

TEST_F(AutocastGuardTest, CpuFloat16FollowsTheLibTorchVersion) {
  amp::AutocastGuard autocast(c10::DeviceType::CPU, c10::kHalf);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  EXPECT_TRUE(autocast.enabled());
  EXPECT_EQ(cpuMatmulDtype(), c10::kHalf);
#else
  EXPECT_FALSE(autocast.enabled());  // 1.13: CPU autocast is bfloat16 only
  EXPECT_EQ(cpuMatmulDtype(), c10::kFloat);
#endif
}

TEST_F(AutocastGuardTest, CudaScopeSavesAndRestoresTheCudaState) {
  setRaw(c10::DeviceType::CUDA, true, c10::kHalf);
  {
    amp::AutocastGuard autocast(c10::DeviceType::CUDA, c10::kBFloat16);
    // Without a CUDA device Python's autocast("cuda") disables itself: so does the guard.
    EXPECT_EQ(autocast.enabled(), at::globalContext().hasCUDA());
    EXPECT_EQ(amp::isAutocastEnabled(c10::DeviceType::CUDA), autocast.enabled());
    EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CUDA), c10::kBFloat16);
    EXPECT_FALSE(amp::isAutocastEnabled(c10::DeviceType::CPU));
  }
  EXPECT_TRUE(amp::isAutocastEnabled(c10::DeviceType::CUDA));
  EXPECT_EQ(amp::autocastDtype(c10::DeviceType::CUDA), c10::kHalf);
  setRaw(c10::DeviceType::CUDA, false, c10::kHalf);
}

TEST_F(AutocastGuardTest, CudaFloat16Matmul) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto a = torch::ones({8, 8}, torch::kCUDA);
  amp::AutocastGuard autocast(c10::DeviceType::CUDA, c10::kHalf);
  EXPECT_EQ(torch::mm(a, a).scalar_type(), c10::kHalf);
}

TEST_F(AutocastGuardTest, UnsupportedDeviceThrows) {
  EXPECT_THROW(amp::AutocastGuard(c10::DeviceType::Meta, c10::kBFloat16), c10::Error);
}

// ---------------------------------------------------------------- GradScaler

namespace {

// One parameter vector whose gradient is scripted: loss = sum(p * g), so
// d loss / d p = g, and the scaled backward gives scale * g.
struct Scripted {
  torch::Tensor p;
  torch::optim::SGD sgd;
  explicit Scripted(torch::Tensor init, double lr = 0.5)
      : p(init.clone().set_requires_grad(true)), sgd(std::vector<torch::Tensor>{p}, torch::optim::SGDOptions(lr)) {}
  torch::Tensor loss(const torch::Tensor& g) { return (p * g.to(p.scalar_type())).sum(); }
};

torch::Tensor vec(std::initializer_list<float> values) { return torch::tensor(std::vector<float>(values)); }

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

}  // namespace

TEST(GradScaler, ScalesTheLossAndStepsWithUnscaledGradients) {
  Scripted m(vec({1, 2, 3}));
  amp::GradScaler scaler;
  auto loss = m.loss(vec({0.25, -1, 4}));
  auto scaled = scaler.scale(loss);
  EXPECT_EQ(scaled.item<double>(), loss.item<double>() * 65536);
  scaled.backward();
  EXPECT_TRUE(torch::equal(m.p.grad(), vec({0.25, -1, 4}) * 65536));
  EXPECT_TRUE(scaler.step(m.sgd));
  EXPECT_TRUE(torch::equal(m.p.grad(), vec({0.25, -1, 4})));
  EXPECT_TRUE(torch::equal(m.p, vec({1 - 0.125, 2 + 0.5, 3 - 2})));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 65536);
  EXPECT_EQ(scaler.get_growth_tracker(), 1);
}

// Why the scaler exists: a gradient below float16's smallest subnormal (6e-8)
// flushes to zero in a float16 part of the graph; scaled, it survives and is
// unscaled in float32.
TEST(GradScaler, KeepsSmallFloat16GradientsFromUnderflowing) {
  auto run = [](bool scaled) {
    auto p = torch::ones({1}, torch::requires_grad());
    torch::optim::SGD sgd(std::vector<torch::Tensor>{p}, torch::optim::SGDOptions(1.0));
    amp::GradScaler scaler(65536.0, 2.0, 0.5, 2000, /*enabled=*/scaled);
    auto activation = p.to(torch::kHalf) * torch::ones({1}, torch::kHalf);  // float16, as under autocast
    auto loss = activation.to(torch::kFloat).sum() * 1e-8;                  // float32 loss, tiny gradient
    scaler.scale(loss).backward();
    scaler.unscale_(sgd);
    return p.grad().item<double>();
  };
  EXPECT_EQ(run(false), 0.0);  // underflowed
  EXPECT_NEAR(run(true), 1e-8, 1e-11);
}

TEST(GradScaler, ScalesEachOutputOfAVector) {
  amp::GradScaler scaler(8.0);
  auto out = scaler.scale(std::vector<torch::Tensor>{torch::ones({2}), torch::full({}, 3.0)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(torch::equal(out[0], torch::full({2}, 8.0)));
  EXPECT_EQ(out[1].item<double>(), 24.0);
  EXPECT_EQ(scaler.get_scale(), 8.0);
}

TEST(GradScaler, SkipsTheStepOnInfOrNaNAndBacksOff) {
  for (float bad : {kInf, -kInf, kNaN}) {
    Scripted m(vec({1, 2, 3}));
    amp::GradScaler scaler(1024.0);
    scaler.scale(m.loss(vec({1, bad, 1}))).backward();
    EXPECT_FALSE(scaler.step(m.sgd)) << bad;
    EXPECT_TRUE(torch::equal(m.p, vec({1, 2, 3}))) << bad;  // parameters untouched
    scaler.update();
    EXPECT_EQ(scaler.get_scale(), 512) << bad;
    EXPECT_EQ(scaler.get_growth_tracker(), 0) << bad;
  }
}

TEST(GradScaler, AFiniteGradientThatOverflowsWhenScaledIsSkipped) {
  Scripted m(vec({1}));
  amp::GradScaler scaler;
  scaler.scale(m.loss(vec({1e35f}))).backward();  // 1e35 * 65536 > FLT_MAX
  EXPECT_FALSE(scaler.step(m.sgd));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32768);
}

TEST(GradScaler, GrowsAfterGrowthIntervalCleanStepsAndNeverToInf) {
  Scripted m(vec({1}));
  amp::GradScaler scaler(8.0, 2.0, 0.5, /*growth_interval=*/3);
  std::vector<double> scales;
  std::vector<int64_t> trackers;
  for (int i = 0; i < 7; ++i) {
    m.sgd.zero_grad();
    scaler.scale(m.loss(vec({1}))).backward();
    scaler.step(m.sgd);
    scaler.update();
    scales.push_back(scaler.get_scale());
    trackers.push_back(scaler.get_growth_tracker());
  }
  EXPECT_EQ(scales, (std::vector<double>{8, 8, 16, 16, 16, 32, 32}));
  EXPECT_EQ(trackers, (std::vector<int64_t>{1, 2, 0, 1, 2, 0, 1}));

  amp::GradScaler top(3e38, 2.0, 0.5, 1);  // 6e38 is not a float: the scale stays
  Scripted n(vec({0}));
  top.scale(n.loss(vec({0}))).backward();
  top.step(n.sgd);
  top.update();
  EXPECT_EQ(top.get_scale(), double(3e38f));
  EXPECT_EQ(top.get_growth_tracker(), 0);
}

TEST(GradScaler, ExplicitUnscaleBeforeClippingUnscalesOnce) {
  Scripted m(vec({0, 0}));
  amp::GradScaler scaler(4.0);
  scaler.scale(m.loss(vec({3, 4}))).backward();
  scaler.unscale_(m.sgd);
  EXPECT_TRUE(torch::equal(m.p.grad(), vec({3, 4})));
  torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{m.p}, 1.0);  // norm 5 -> 1
  EXPECT_TRUE(scaler.step(m.sgd));
  EXPECT_TRUE(torch::allclose(m.p, vec({-0.3f, -0.4f})));
  scaler.update();
}

TEST(GradScaler, MisuseRaisesPythonsErrors) {
  Scripted m(vec({1}));
  amp::GradScaler scaler;
  EXPECT_THROW(scaler.step(m.sgd), c10::Error);  // no scale() yet
  EXPECT_THROW(scaler.update(), c10::Error);
  scaler.scale(m.loss(vec({1}))).backward();
  EXPECT_THROW(scaler.update(), c10::Error);  // no inf check recorded
  scaler.unscale_(m.sgd);
  EXPECT_THROW(scaler.unscale_(m.sgd), c10::Error);
  scaler.step(m.sgd);
  EXPECT_THROW(scaler.step(m.sgd), c10::Error);
  EXPECT_THROW(scaler.unscale_(m.sgd), c10::Error);
  scaler.update();
  EXPECT_NO_THROW(scaler.unscale_(m.sgd));  // a new iteration
  EXPECT_THROW(amp::GradScaler(65536, 1.0), c10::Error);
  EXPECT_THROW(amp::GradScaler(65536, 2.0, 1.0), c10::Error);
}

TEST(GradScaler, RefusesFloat16Gradients) {
  Scripted m(vec({1, 2}).to(torch::kHalf));
  amp::GradScaler scaler;
  scaler.scale(m.loss(vec({1, 1}))).backward();
  EXPECT_THROW(scaler.step(m.sgd), c10::Error);  // Python: ValueError "Attempting to unscale FP16 gradients."
}

TEST(GradScaler, BFloat16GradientsAreUnscaledInFloat) {
  Scripted m(vec({0, 0}).to(torch::kBFloat16), /*lr=*/1.0);
  amp::GradScaler scaler(3.0);  // 1/3 is not a bfloat16: the product must be taken in float
  auto g = vec({1.5, 7}).to(torch::kBFloat16);
  scaler.scale(m.loss(g)).backward();
  auto scaled = m.p.grad().clone();
  scaler.unscale_(m.sgd);
  auto inv = torch::full({}, 1.0 / 3.0, torch::kFloat);
  EXPECT_TRUE(torch::equal(m.p.grad(), (scaled.to(torch::kFloat) * inv).to(torch::kBFloat16)));
  scaler.step(m.sgd);
  scaler.update();
}

TEST(GradScaler, SparseGradientsAreUnscaled) {
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(4, 2).sparse(true));
  torch::optim::SGD sgd(emb->parameters(), torch::optim::SGDOptions(0.1));
  amp::GradScaler scaler(16.0);
  scaler.scale(emb->forward(torch::tensor({1, 1, 3})).sum()).backward();
  ASSERT_TRUE(emb->weight.grad().is_sparse());
  scaler.unscale_(sgd);
  auto dense = emb->weight.grad().to_dense();
  EXPECT_TRUE(torch::equal(dense, torch::tensor({{0.f, 0.f}, {2.f, 2.f}, {0.f, 0.f}, {1.f, 1.f}})));
}

TEST(GradScaler, OneOptimizerWithInfSkipsOnlyItselfAndBacksOffOnce) {
  Scripted a(vec({1})), b(vec({1}));
  amp::GradScaler scaler(64.0);
  scaler.scale(a.loss(vec({kInf})) + b.loss(vec({2}))).backward();
  EXPECT_FALSE(scaler.step(a.sgd));
  EXPECT_TRUE(scaler.step(b.sgd));
  EXPECT_TRUE(torch::equal(a.p, vec({1})));
  EXPECT_TRUE(torch::equal(b.p, vec({0})));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 32);
}

TEST(GradScaler, DisabledPassesThrough) {
  Scripted m(vec({1}));
  amp::GradScaler scaler(65536, 2, 0.5, 2000, /*enabled=*/false);
  auto loss = m.loss(vec({kInf}));
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  loss.backward();
  EXPECT_TRUE(scaler.step(m.sgd));  // no inf check: the step runs
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 1.0);
  EXPECT_FALSE(scaler.state_dict().enabled);
  amp::GradScaler enabled;
  EXPECT_THROW(enabled.load_state_dict(scaler.state_dict()), c10::Error);
}

TEST(GradScaler, ManualUpdateSetsTheScaleAndKeepsTheTracker) {
  Scripted m(vec({1}));
  amp::GradScaler scaler;
  scaler.scale(m.loss(vec({1}))).backward();
  scaler.step(m.sgd);
  scaler.update();
  scaler.update(100.0);
  EXPECT_EQ(scaler.get_scale(), 100);
  EXPECT_EQ(scaler.get_growth_tracker(), 1);
  scaler.update(torch::full({1}, 7.0));
  EXPECT_EQ(scaler.get_scale(), 7);
  EXPECT_THROW(scaler.update(torch::full({1}, 7.0, torch::requires_grad())), c10::Error);
  EXPECT_THROW(scaler.update(torch::full({2}, 7.0)), c10::Error);
}

TEST(GradScaler, StateSurvivesSaveAndLoad) {
  Scripted m(vec({1}));
  amp::GradScaler scaler(1024, 3.0, 0.25, 10);
  for (float g : {1.f, kInf, 1.f, 1.f}) {
    m.sgd.zero_grad();
    scaler.scale(m.loss(vec({g}))).backward();
    scaler.step(m.sgd);
    scaler.update();
  }
  amp::GradScalerState s = scaler.state_dict();
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.scale, 256);
  EXPECT_EQ(s.growth_tracker, 2);
  EXPECT_EQ(s.growth_factor, 3.0);
  EXPECT_EQ(s.backoff_factor, 0.25);
  EXPECT_EQ(s.growth_interval, 10);

  amp::GradScaler fresh;  // before its first scale(): the state waits for it
  fresh.load_state_dict(s);
  EXPECT_EQ(fresh.get_scale(), 256);
  EXPECT_EQ(fresh.get_growth_tracker(), 2);
  EXPECT_EQ(fresh.get_growth_interval(), 10);

  std::stringstream stream;
  torch::save(scaler, stream);
  amp::GradScaler loaded;
  Scripted n(vec({1}));
  loaded.scale(n.loss(vec({1})));  // already initialised: the tensors are filled
  torch::load(loaded, stream);
  EXPECT_EQ(loaded.get_scale(), 256);
  EXPECT_EQ(loaded.get_growth_tracker(), 2);
  EXPECT_EQ(loaded.get_growth_factor(), 3.0);
  EXPECT_EQ(loaded.get_backoff_factor(), 0.25);

  std::stringstream empty;
  torch::save(amp::GradScaler(65536, 2, 0.5, 2000, false), empty);
  amp::GradScaler target;
  EXPECT_THROW(torch::load(target, empty), c10::Error);
}

// The fused ops exist for CPU from LibTorch 2.3; 1.13 has no CPU kernel, and
// calling one there fails. The scaler then uses its composite path.
TEST(GradScaler, FusedCpuKernelsFollowTheLibTorchVersion) {
  bool fused = amp::fusedScalerKernelsAvailable(c10::DeviceType::CPU);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  EXPECT_TRUE(fused);
#elif TORCH_VERSION_MAJOR < 2
  EXPECT_FALSE(fused);
#endif
  auto scale = torch::full({}, 2.0f);
  auto tracker = torch::zeros({}, torch::kInt);
  auto found = torch::zeros({});
  if (fused) {
    EXPECT_NO_THROW(at::_amp_update_scale_(scale, tracker, found, 2.0, 0.5, 1));
  } else {
    EXPECT_THROW(at::_amp_update_scale_(scale, tracker, found, 2.0, 0.5, 1), c10::Error);
    std::vector<at::Tensor> grads{torch::ones({2})};
    EXPECT_THROW(at::_amp_foreach_non_finite_check_and_unscale_(grads, found, scale), c10::Error);
  }
}

// The composite path gives the fused kernels' numbers, bit for bit (where this
// LibTorch has them; elsewhere the Python parity test covers it).
TEST(GradScaler, CompositeAndFusedAgreeBitForBit) {
  if (!amp::fusedScalerKernelsAvailable(c10::DeviceType::CPU)) GTEST_SKIP() << "no fused CPU kernels in this LibTorch";
  auto run = [](amp::GradScaler::Kernels kernels) {
    Scripted f(vec({1, -2, 3, 0.1f}), 0.125), h(vec({0.5, 1.5}).to(torch::kBFloat16), 0.25);
    amp::GradScaler scaler(1000.0, 3.0, 0.3, 2);
    scaler.set_kernels(kernels);
    std::vector<float> scales;
    const std::vector<std::pair<float, float>> script = {{1.f, 0.5f}, {kInf, 1.f}, {0.3f, 0.7f}, {1e-3f, kNaN},
                                                         {2.f, 3.f},  {5.f, 1.f},  {1e34f, 1.f}, {0.1f, 0.1f}};
    for (auto [a, b] : script) {
      f.sgd.zero_grad();
      h.sgd.zero_grad();
      scaler.scale(f.loss(vec({a, 1, -a, 2})) + h.loss(vec({b, -b}))).backward();
      scaler.step(f.sgd);
      scaler.step(h.sgd);
      scaler.update();
      scales.push_back(float(scaler.get_scale()));
    }
    return std::make_tuple(scales, f.p.detach().clone(), h.p.detach().clone());
  };
  auto [fs, fp, fh] = run(amp::GradScaler::Kernels::Auto);
  auto [cs, cp, ch] = run(amp::GradScaler::Kernels::Composite);
  EXPECT_EQ(fs, cs);
  EXPECT_TRUE(torch::equal(fp, cp));
  EXPECT_TRUE(torch::equal(fh, ch));
}

TEST(GradScaler, CudaStepSkipsOnInf) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto p = torch::ones({2}, torch::TensorOptions().device(torch::kCUDA).requires_grad(true));
  torch::optim::SGD sgd(std::vector<torch::Tensor>{p}, torch::optim::SGDOptions(0.5));
  amp::GradScaler scaler(256.0);
  scaler.scale((p * torch::tensor({1.f, kInf}, torch::kCUDA)).sum()).backward();
  EXPECT_FALSE(scaler.step(sgd));
  scaler.update();
  EXPECT_EQ(scaler.get_scale(), 128);
  EXPECT_TRUE(amp::fusedScalerKernelsAvailable(c10::DeviceType::CUDA));
}
