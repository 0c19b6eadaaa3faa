// An evaluation helper that switches CPU autocast on by hand and returns early
// on an empty batch without switching it off: the caller's next training step
// then runs in bfloat16 too. After the fix an AutocastGuard scope switches it
// off on every path.
#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

static double evaluate(Net &model, const torch::Tensor &x, const torch::Tensor &y) {
  torch::NoGradGuard no_grad;
  double loss = -1;
  at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
  at::autocast::set_cpu_enabled(true);
  auto out = model->forward(x);
  std::printf("evaluate: %s\n", c10::toString(out.scalar_type()));
  if (out.numel() == 0)
    return loss;
  loss = torch::mse_loss(out.to(torch::kFloat), y).item<double>();
  at::autocast::set_cpu_enabled(false);
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
    auto pred = model->forward(x);
    auto loss = torch::mse_loss(pred.to(torch::kFloat), y);
    loss.backward();
    opt.step();
    std::printf("epoch %d: train %s autocast %d\n", epoch, c10::toString(pred.scalar_type()),
                at::autocast::is_cpu_enabled() ? 1 : 0);
    evaluate(model, x, y);
    evaluate(model, empty, y); // the early return
  }
  return 0;
}
