// Linear regression on synthetic data whose training loop never zeroes the
// gradients: each step applies the sum of all gradients so far.
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
  const int64_t n = 256, batch = 32;
  auto w = torch::randn({8, 1});
  auto x = torch::randn({n, 8});
  auto y = x.matmul(w) + 0.5;

  Regressor model;
  auto optimizer = std::make_unique<torch::optim::SGD>(model->parameters(),
                                                       torch::optim::SGDOptions(0.05));
  for (int epoch = 0; epoch < 30; ++epoch) {
    for (int64_t start = 0; start < n; start += batch) {
      auto xb = x.narrow(0, start, batch);
      auto yb = y.narrow(0, start, batch);
      auto loss = torch::mse_loss(model->forward(xb), yb);
      loss.backward();
      optimizer->step();
    }
  }
  torch::NoGradGuard no_grad;
  double final_loss = torch::mse_loss(model->forward(x), y).item<double>();
  std::printf("final loss %.6f: %s\n", final_loss, final_loss < 1e-3 ? "converged" : "diverged");
  return 0;
}
