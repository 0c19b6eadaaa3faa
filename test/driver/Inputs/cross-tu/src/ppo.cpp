#include "policy.h"

void ppo_update(Policy &policy, torch::optim::SGD &opt, torch::Tensor obs, torch::Tensor adv) {
  opt.zero_grad();
  auto log_probs = evaluate_actions(policy, obs);
  auto loss = -(log_probs * adv).mean();
  loss.backward();
  opt.step();
}
