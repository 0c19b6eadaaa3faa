// Mixed-precision training with the runtime's AutocastGuard and GradScaler: a
// small MLP classifier on synthetic data, trained once in float32 and once
// under autocast (CPU: bfloat16; CUDA: float16), with the activation memory of
// one training step measured each way: the bytes the forward pass leaves alive
// for backward (the saved activations, and under autocast the cached
// lower-precision copies of the weights), CPU bytes from the runtime's counting
// allocator, CUDA bytes from the caching allocator's statistics.
//   example_mixed_precision [--device cpu|cuda] [--steps N] [--batch B]
// Default device: CUDA when available. Prints one line per mode and the ratio.
#include <libtorch_tidy/amp.h>
#include <libtorch_tidy/cuda.h>
#include <libtorch_tidy/memory.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace amp = libtorch_tidy::amp;

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(128, 512))),
        fc2(register_module("fc2", torch::nn::Linear(512, 512))),
        fc3(register_module("fc3", torch::nn::Linear(512, 512))),
        out(register_module("out", torch::nn::Linear(512, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x));
    x = torch::relu(fc2(x));
    x = torch::relu(fc3(x));
    return out(x);
  }
  torch::nn::Linear fc1, fc2, fc3, out;
};
TORCH_MODULE(Mlp);

struct Result {
  double first_loss = 0, last_loss = 0;
  int64_t weight_copy_bytes = 0;  // lower-precision copies of the weight matrices (autocast)
  int64_t activation_bytes = 0;  // alive after forward, before backward
  int64_t peak_bytes = 0;        // peak of the step above the bytes alive before it
  int skipped = 0;
  double final_scale = 1;
};

// Live bytes on the device the model runs on.
static int64_t liveBytes(const torch::Device& device) {
  if (device.is_cuda()) {
    auto s = libtorch_tidy::cudaMemoryStats(device.index());
    return s ? s->allocated_bytes : 0;
  }
  return libtorch_tidy::cpuMemoryStats().live_bytes;
}
static int64_t peakBytes(const torch::Device& device) {
  if (device.is_cuda()) {
    auto s = libtorch_tidy::cudaMemoryStats(device.index());
    return s ? s->peak_allocated_bytes : 0;
  }
  return libtorch_tidy::cpuMemoryStats().peak_bytes;
}
static void resetPeak(const torch::Device& device) {
  if (device.is_cuda()) {
    libtorch_tidy::resetCudaPeak(device.index());
  } else {
    libtorch_tidy::resetCpuPeak();
  }
}

static Result train(const torch::Device& device, bool mixed, int steps, int batch) {
  torch::manual_seed(0);
  Mlp model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  const c10::ScalarType dtype = device.is_cuda() ? torch::kHalf : torch::kBFloat16;
  amp::GradScaler scaler(65536.0, 2.0, 0.5, 2000, /*enabled=*/mixed);
  auto teacher = torch::randn({128, 10}, device);
  Result r;
  // One synthetic batch (labels from a random linear teacher), trained on at every step.
  auto x = torch::randn({batch, 128}, device);
  auto y = x.matmul(teacher).argmax(1);
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    if (device.is_cuda()) torch::cuda::synchronize();
    const int64_t before = liveBytes(device);
    resetPeak(device);
    torch::Tensor loss;
    {
      amp::AutocastGuard autocast(device.type(), dtype, /*enabled=*/mixed);
      loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    }
    if (step == steps - 1) r.activation_bytes = liveBytes(device) - before;
    scaler.scale(loss).backward();
    if (!scaler.step(optimizer)) ++r.skipped;
    scaler.update();
    if (device.is_cuda()) torch::cuda::synchronize();
    if (step == steps - 1) r.peak_bytes = peakBytes(device) - before;
    const double l = loss.item<double>();
    if (step == 0) r.first_loss = l;
    r.last_loss = l;
  }
  r.final_scale = scaler.get_scale();
  if (mixed) {
    for (const auto& p : model->parameters())
      if (p.dim() == 2) r.weight_copy_bytes += p.numel() * static_cast<int64_t>(c10::elementSize(dtype));
  }
  return r;
}

static double mib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

int main(int argc, char** argv) {
  std::string device_name = torch::cuda::is_available() ? "cuda" : "cpu";
  int steps = 20, batch = 1024;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) {
      device_name = argv[++i];
    } else if (a == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (a == "--batch" && i + 1 < argc) {
      batch = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--device cpu|cuda] [--steps N] [--batch B]\n", argv[0]);
      return 2;
    }
  }
  if ((device_name != "cpu" && device_name != "cuda") || steps < 1 || batch < 1) {
    std::fprintf(stderr, "example_mixed_precision: bad --device, --steps or --batch\n");
    return 2;
  }
  if (device_name == "cuda" && !torch::cuda::is_available()) {
    std::fprintf(stderr, "example_mixed_precision: no CUDA device\n");
    return 3;
  }
  torch::Device device(device_name == "cuda" ? torch::kCUDA : torch::kCPU, device_name == "cuda" ? 0 : -1);
  if (device.is_cuda() && !libtorch_tidy::cudaStatsCompiled()) {
    std::fprintf(stderr, "example_mixed_precision: the runtime was built without CUDA statistics\n");
    return 3;
  }
  libtorch_tidy::ScopedCountingAllocator counting;
  const char* low = device.is_cuda() ? "float16" : "bfloat16";
  Result full = train(device, false, steps, batch);
  Result mixed = train(device, true, steps, batch);
  std::printf("mixed_precision: %s, batch %d, %d steps\n", device_name.c_str(), batch, steps);
  std::printf("  float32:  activations %.2f MiB, step peak %.2f MiB, loss %.3f -> %.3f\n", mib(full.activation_bytes),
              mib(full.peak_bytes), full.first_loss, full.last_loss);
  std::printf("  %-8s  activations %.2f MiB, step peak %.2f MiB, loss %.3f -> %.3f, %d skipped steps, scale %g\n",
              (std::string(low) + ":").c_str(), mib(mixed.activation_bytes), mib(mixed.peak_bytes), mixed.first_loss,
              mixed.last_loss, mixed.skipped, mixed.final_scale);
  std::printf("  activations under autocast: %.2f of float32 (%lld vs %lld bytes; %lld of them %s copies of the weights)\n",
              double(mixed.activation_bytes) / double(full.activation_bytes),
              static_cast<long long>(mixed.activation_bytes), static_cast<long long>(full.activation_bytes),
              static_cast<long long>(mixed.weight_copy_bytes), low);
  std::printf("  without the weight copies: %.2f of float32\n",
              double(mixed.activation_bytes - mixed.weight_copy_bytes) / double(full.activation_bytes));
  // The program is an example, and a check that mixed precision trains and saves memory.
  if (!(mixed.last_loss < mixed.first_loss) || !(full.last_loss < full.first_loss)) {
    std::fprintf(stderr, "example_mixed_precision: the loss did not decrease\n");
    return 1;
  }
  if (mixed.skipped == steps || mixed.activation_bytes >= full.activation_bytes) {
    std::fprintf(stderr, "example_mixed_precision: autocast did not lower the activation memory\n");
    return 1;
  }
  return 0;
}
