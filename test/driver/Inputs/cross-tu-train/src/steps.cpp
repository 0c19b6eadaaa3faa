#include "train.h"

void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = model->forward(x).sum();
  loss.backward();
  opt.step();
}

void train_step_zeroing(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  model->forward(x).sum().backward();
  opt.step();
}

void train_step_maybe(Net &model, torch::optim::SGD &opt, torch::Tensor x, bool update) {
  model->forward(x).sum().backward();
  if (update)
    opt.step();
}

struct SgdLearner : Learner {
  SgdLearner(Net m, torch::optim::SGD &o) : model(m), opt(o) {}
  void learn(torch::Tensor x) override {
    model->forward(x).sum().backward();
    opt.step();
  }
  Net model;
  torch::optim::SGD &opt;
};
