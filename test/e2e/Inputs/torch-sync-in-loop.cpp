// A training loop that reads its loss back to the host on every iteration
// (item()), next to the habits that are fine: logging every N steps and
// reading the loss after the loop.
#include <torch/torch.h>

#include <cstdio>

struct RegressorImpl : torch::nn::Module {
  RegressorImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Regressor);

int main() {
  torch::manual_seed(0);
  torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  auto x = torch::randn({256, 8}).to(device);
  auto y = x.matmul(torch::randn({8, 1}).to(device));
  Regressor model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05));
  const int log_every = 50;
  double running = 0;
  torch::Tensor loss;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int64_t step = 0; step * 32 < x.size(0); ++step) {
      optimizer.zero_grad();
      loss = torch::mse_loss(model->forward(x.narrow(0, step * 32, 32)),
                             y.narrow(0, step * 32, 32));
      loss.backward();
      optimizer.step();
      running += loss.item<double>();
      if (step % log_every == 0)
        std::printf("epoch %d step %lld loss %.4f\n", epoch, static_cast<long long>(step),
                    loss.item<float>());
    }
    std::printf("epoch %d mean loss %.4f\n", epoch, running / 8);
    running = 0;
  }
  std::printf("final loss %.4f\n", loss.to(torch::kCPU).item<double>());
  return 0;
}
