#include "model.h"

torch::Tensor run_batch(torch::nn::Linear &m, torch::Tensor x) { return apply_model(m, x); }

torch::Tensor run_guarded(torch::nn::Linear &m, torch::Tensor x) {
  torch::NoGradGuard guard;
  return apply_model(m, x);
}

void tune_batch(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  finetune(m, opt, x);
}

// Zeroes through prepare (model.cpp), then backpropagates and steps.
void step_prepared(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  prepare(m);
  m->forward(x).sum().backward();
  opt.step();
}

// Backpropagates and steps, never zeroes.
void step_plain(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  m->forward(x).sum().backward();
  opt.step();
}
