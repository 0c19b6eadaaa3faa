#include "policy.h"

// The finding that appears only with policy.cpp's summaries: run_policy runs
// a forward pass with autograd on, in evaluation code.
double validate(Policy &policy, torch::Tensor obs) {
  policy->eval();
  auto out = run_policy(policy, obs);
  return out.sum().item<double>();
}

// Look-alike: the guard covers the helper's forward pass.
double test_guarded(Policy &policy, torch::Tensor obs) {
  torch::NoGradGuard no_grad;
  return run_policy(policy, obs).sum().item<double>();
}

// Named like evaluation, but the helper it calls trains: training code, the
// second false alarm that the summaries silence.
double evaluate_then_tune(Policy &policy, torch::optim::SGD &opt, torch::Tensor obs) {
  double before = policy->forward(obs).sum().item<double>();
  finetune(policy, opt, obs);
  return before;
}
