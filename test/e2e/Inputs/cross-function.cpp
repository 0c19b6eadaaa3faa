// The mistakes of a trainer class split across functions (docs/cross-function.md):
// the step never zeroes the gradients, the running loss member keeps every
// step's graph, and the validation helper runs its forward pass with autograd.
#include <torch/torch.h>
#include <cstdio>

struct Trainer {
  torch::nn::Linear model{4, 1};
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.01)};
  torch::Tensor running_loss_ = torch::zeros({});

  void train_step(const torch::Tensor &x, const torch::Tensor &y) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
    running_loss_ += loss;
  }
};

double validate(torch::nn::Linear &model, const torch::Tensor &x, const torch::Tensor &y) {
  auto out = model(x);
  return torch::mse_loss(out, y).item<double>();
}

int main() {
  torch::manual_seed(0);
  Trainer trainer;
  auto x = torch::randn({64, 4});
  auto y = x.sum(1, true);
  double loss = 0;
  for (int epoch = 0; epoch < 20; ++epoch) {
    for (int i = 0; i < 10; ++i)
      trainer.train_step(x, y);
    loss = validate(trainer.model, x, y);
  }
  std::printf("running loss keeps history: %s\n",
              trainer.running_loss_.requires_grad() ? "yes" : "no");
  std::printf("validation loss %.4f: %s\n", loss, loss < 0.05 ? "converged" : "diverged");
}
