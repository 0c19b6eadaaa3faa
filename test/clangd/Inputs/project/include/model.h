// The model of the project, and its training step (defined in src/steps.cpp).
#pragma once
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// Forward, backward and step, without zeroing the gradients.
void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x);
