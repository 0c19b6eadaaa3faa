#include "rollout.h"

void update(Agent *agent, torch::optim::Adam &opt) {
  auto oldLogProbs = torch::cat(agent->logProbs).detach();
  auto oldValues = torch::cat(agent->values).detach();
  auto loss = (oldLogProbs - oldValues).mean() + valueLoss(agent);
  opt.zero_grad();
  loss.backward();
  opt.step();
  agent->logProbs.clear();
  agent->values.clear();
}
