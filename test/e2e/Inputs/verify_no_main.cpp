// A library file: evaluate() has a finding, but there is no program to run.
#include <torch/torch.h>

double evaluate(torch::nn::Linear &model) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 50; ++i)
    total += model->forward(torch::randn({4, 8})).sum();
  return total.item<double>();
}
