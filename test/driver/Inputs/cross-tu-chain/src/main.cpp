#include "model.h"

// The finding that needs both other files: run_batch (batch.cpp) calls
// apply_model (model.cpp), which runs a forward pass with autograd on.
double validate(torch::nn::Linear &m, torch::Tensor x) {
  m->eval();
  return run_batch(m, x).sum().item<double>();
}

// Look-alike: the guard is on the way, in batch.cpp.
double test_guarded(torch::nn::Linear &m, torch::Tensor x) {
  m->eval();
  return run_guarded(m, x).sum().item<double>();
}

// Named like evaluation, but it trains two files away: training code.
double evaluate_then_tune(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  double before = m->forward(x).sum().item<double>();
  tune_batch(m, opt, x);
  return before;
}

// The loop zeroes through step_prepared, two files away: silent.
void fit_prepared(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i)
    step_prepared(m, opt, x);
}

// Never zeroed: warned at the loop.
void fit_plain(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i)
    step_plain(m, opt, x);
}
