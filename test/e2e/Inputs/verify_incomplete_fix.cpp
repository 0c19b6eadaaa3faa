// Two leaks in one evaluation loop: the forward passes run with autograd on
// (torch-eval-without-no-grad finds it and the fix-it removes that growth),
// and every prediction is also kept in a cache that is never trimmed, which no
// check can know is a mistake. After the fix the loop still grows.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct ScorerImpl : torch::nn::Module {
  ScorerImpl() : fc(register_module("fc", torch::nn::Linear(64, 64))) {}
  torch::Tensor forward(torch::Tensor x) { return torch::relu(fc(x)); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Scorer);

static std::vector<torch::Tensor> prediction_cache;

double evaluate(Scorer &model, int batches) {
  model->eval();
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < batches; ++i) {
    auto out = model->forward(torch::randn({128, 64}));
    total += out.mean();
    prediction_cache.push_back(out.detach().clone());
  }
  return total.item<double>();
}

int main() {
  torch::manual_seed(0);
  Scorer model;
  std::printf("%.3f\n", evaluate(model, 200));
  return 0;
}
