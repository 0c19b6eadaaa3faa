// torch-fp16-without-grad-scaler.cpp with the loss scaled by the runtime
// companion's GradScaler and autocast held by an AutocastGuard scope: what the
// check's warning asks for. On a CPU-only LibTorch 1.13, float16 autocast is
// not available on the CPU: the guard warns and disables itself, and the loop
// trains in float32 with the same scaler calls.
#include <libtorch_tidy/amp.h>
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

int main() {
  torch::manual_seed(0);
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Net model;
  model->to(device);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto x = torch::randn({64, 8}, device);
  auto y = x.sum(1, /*keepdim=*/true);
  libtorch_tidy::amp::GradScaler scaler;
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    torch::Tensor loss;
    {
      libtorch_tidy::amp::AutocastGuard autocast(device.type(), torch::kHalf);
      loss = torch::mse_loss(model->forward(x).to(torch::kFloat), y);
    }
    scaler.scale(loss).backward();
    scaler.step(opt);
    scaler.update();
    std::printf("step %d: loss %.4f scale %.0f\n", step, loss.item<double>(), scaler.get_scale());
  }
  return 0;
}
