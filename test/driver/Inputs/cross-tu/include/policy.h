// A project split over several files: the model and the functions that one
// file defines and others call.
#pragma once
#include <torch/torch.h>

struct PolicyImpl : torch::nn::Module {
  PolicyImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Policy);

// Defined in src/policy.cpp.
torch::Tensor evaluate_actions(Policy &policy, torch::Tensor obs);
torch::Tensor run_policy(Policy &policy, torch::Tensor obs);
void finetune(Policy &policy, torch::optim::SGD &opt, torch::Tensor obs);
