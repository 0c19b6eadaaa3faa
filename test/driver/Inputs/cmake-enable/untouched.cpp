#include <torch/torch.h>

// The same mistake in a target without libtorch_tidy_enable: not analysed.
double evaluate_other(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model->forward(x).sum().item<double>();
}
