#include "model.h"

double report(torch::nn::Linear &m, torch::Tensor x) {
  torch::NoGradGuard g;
  return evaluate_batch(m, x).sum().item<double>();
}
