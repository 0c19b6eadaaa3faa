#include "model.h"

double evaluate(Net &model, torch::Tensor x) {
  double total = 0;
  total += model->forward(x).sum().item<double>();
  return total;
}
