#include "model.h"

// The forward pass, two files away from the evaluation code.
torch::Tensor apply_model(torch::nn::Linear &m, torch::Tensor x) { return m->forward(x); }

// Training, two files away.
void finetune(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  m->forward(x).sum().backward();
  opt.step();
}

// Zeroes the module's gradients, two files away from the training loop.
void prepare(torch::nn::Linear &m) { m->zero_grad(); }
