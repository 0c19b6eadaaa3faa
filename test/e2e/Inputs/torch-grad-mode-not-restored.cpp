// A trainer whose evaluation switches autograd off with GradMode and returns
// early on an empty batch without switching it back on: the next epoch would
// train with autograd off. After the fix a NoGradGuard scope restores it.
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

static double evaluate(Net &model, const torch::Tensor &x, const torch::Tensor &y) {
  double loss = -1;
  torch::autograd::GradMode::set_enabled(false);
  model->eval();
  auto out = model->forward(x);
  if (out.numel() == 0)
    return loss;
  loss = torch::mse_loss(out, y).item<double>();
  torch::autograd::GradMode::set_enabled(true);
  model->train();
  return loss;
}

int main() {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto x = torch::randn({64, 8});
  auto y = x.sum(1, /*keepdim=*/true);
  auto empty = torch::empty({0, 8});
  for (int epoch = 0; epoch < 3; ++epoch) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(x), y);
    loss.backward(); // throws if autograd was left off by evaluate()
    opt.step();
    evaluate(model, empty, y); // the early return
    std::printf("epoch %d: validation %.4f grad mode %d\n", epoch, evaluate(model, x, y),
                torch::autograd::GradMode::is_enabled() ? 1 : 0);
  }
  return 0;
}
