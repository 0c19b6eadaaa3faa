// Other standard headers before LibTorch, one after: the same shared header.
#include <string>
#include <vector>
#include <torch/torch.h>
#include <cmath>

double evaluate_other(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return std::sqrt(model->forward(x).sum().item<double>());
}
