// A third-party header before LibTorch: a precompiled header of its own.
#include <thirdparty/config.h>
#include <torch/torch.h>

double evaluate_third(torch::nn::Linear &model, const torch::Tensor &x) {
  model->eval();
  return model->forward(x).sum().item<double>() * THIRDPARTY_CONFIG;
}
