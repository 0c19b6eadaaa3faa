// A project header that includes a third-party header before LibTorch: a full
// parse.
#include "wrapped.h"

double evaluate_wrapped(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model->forward(x).sum().item<double>() * THIRDPARTY_CONFIG;
}
