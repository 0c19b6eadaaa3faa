#include <torch/torch.h>

double evaluate_only(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model->forward(x).sum().item<double>();
}
