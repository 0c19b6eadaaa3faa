#include "agent.h"

torch::Tensor Agent::act(torch::Tensor observation) {
  auto probs = policy.sample(observation);
  return probs.argmax(1).detach();
}

torch::Tensor Agent::record(torch::Tensor observation) {
  auto probs = policy.sample_and_keep(observation);
  return probs.argmax(1).detach();
}
