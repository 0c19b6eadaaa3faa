// Starts with angled includes, LibTorch last: shares the precompiled header.
#include <vector>
/* the LibTorch API */
#include <torch/torch.h>
#include "model.h"

double evaluate_a(Net &model, const std::vector<torch::Tensor> &batches) {
  double total = 0;
  for (const auto &x : batches) {
    auto out = model->forward(x);
    total += out.sum().item<double>();
  }
  return total;
}
