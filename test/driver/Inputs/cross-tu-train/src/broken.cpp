#include "train.h"

void train_step_broken(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  model->forward(x).sum().backward();
  opt.step();
  this_does_not_compile;
}

void Buffer::flush() { acc_ = torch::zeros({1}); }
