// A PPO rollout over three files: act.cpp stores each step's log-probability
// and value in the agent's vectors; update.cpp reads both detached; critic.cpp
// also reads the values with their history (a value loss): only logProbs is
// kept for nothing.
#pragma once
#include <torch/torch.h>
#include <vector>

struct Agent {
  torch::nn::Linear model{nullptr};
  std::vector<torch::Tensor> logProbs, values;
};

void act(Agent *agent, torch::Tensor obs);
void update(Agent *agent, torch::optim::Adam &opt);
torch::Tensor valueLoss(Agent *agent);
