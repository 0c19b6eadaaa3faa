// A regression whose Adam optimizer is rebuilt every epoch: its moment
// estimates and step counts start from zero again each time. A second run
// sweeps the learning rate, building a fresh model per trial: not flagged.
#include <torch/torch.h>

#include <cstdio>

struct RegressorImpl : torch::nn::Module {
  RegressorImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Regressor);

static double train(Regressor &model, const torch::Tensor &x, const torch::Tensor &y, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
    for (int64_t start = 0; start < x.size(0); start += 32) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(x.narrow(0, start, 32)), y.narrow(0, start, 32));
      loss.backward();
      optimizer.step();
    }
  }
  torch::NoGradGuard no_grad;
  return torch::mse_loss(model->forward(x), y).item<double>();
}

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({128, 8});
  auto y = x.matmul(torch::randn({8, 1}));
  Regressor model;
  std::printf("loss after 10 epochs: %.4f\n", train(model, x, y, 10));
  for (double lr : {1e-2, 1e-3}) {
    Regressor trial;
    torch::optim::SGD optimizer(trial->parameters(), torch::optim::SGDOptions(lr));
    for (int step = 0; step < 20; ++step) {
      optimizer.zero_grad();
      torch::mse_loss(trial->forward(x), y).backward();
      optimizer.step();
    }
    std::printf("trial lr %.0e done\n", lr);
  }
  return 0;
}
