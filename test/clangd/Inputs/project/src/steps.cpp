#include "model.h"

void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = model(x).sum();
  loss.backward();
  opt.step();
}
