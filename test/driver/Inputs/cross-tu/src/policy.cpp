#include "policy.h"

// Named like evaluation, but ppo.cpp backpropagates through its result: the
// false alarm that the summaries of ppo.cpp silence.
torch::Tensor evaluate_actions(Policy &policy, torch::Tensor obs) {
  return policy->forward(obs).log_softmax(1);
}

// A helper that runs a forward pass: invisible from report.cpp alone.
torch::Tensor run_policy(Policy &policy, torch::Tensor obs) {
  return policy->forward(obs);
}

// A helper that trains.
void finetune(Policy &policy, torch::optim::SGD &opt, torch::Tensor obs) {
  opt.zero_grad();
  policy->forward(obs).sum().backward();
  opt.step();
}
