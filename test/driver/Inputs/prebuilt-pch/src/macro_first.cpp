// A macro defined before LibTorch, which LibTorch's headers might read: a
// full parse.
#define LIBTORCH_TIDY_TEST_OPTION 1
#include <torch/torch.h>

double evaluate_macro(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model->forward(x).sum().item<double>() * LIBTORCH_TIDY_TEST_OPTION;
}
