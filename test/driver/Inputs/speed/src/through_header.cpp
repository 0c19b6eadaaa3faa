// LibTorch only through a project header: a plain parse.
#include "model.h"

double evaluate_header(Net &model, torch::Tensor x) {
  auto out = model->forward(x);
  return out.sum().item<double>();
}
