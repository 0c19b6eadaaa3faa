// A hand-written mixed-precision training loop: CUDA autocast (float16 unless
// its dtype is set) and backward on the unscaled loss. On a GPU, gradients
// below float16's range become zero. (Without CUDA it trains in float32.)
#include <ATen/autocast_mode.h>
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
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    at::autocast::set_enabled(true);
    auto loss = torch::mse_loss(model->forward(x).to(torch::kFloat), y);
    at::autocast::set_enabled(false);
    loss.backward();
    opt.step();
    std::printf("step %d: loss %.4f\n", step, loss.item<double>());
  }
  return 0;
}
