// A soft actor-critic's action selection over three files, as
// QuentinVacher-rl/SoftActorCritic-in-Cpp-using-LibTorch writes it:
// Agent::chooseAction (agent.cpp) calls Actor::sampleNormal (actor.cpp), which
// runs the actor's forward pass and builds a local Normal from its outputs,
// whose sampling methods are defined in normal.cpp. Only the detached action
// leaves. The look-alike: chooseAndKeep goes through sampleAndKeep, whose
// Normal::rsampleAndKeep stores the mean in a global.
#pragma once
#include <torch/torch.h>
#include <utility>
#include <vector>

extern std::vector<torch::Tensor> seen_means;

class Normal {
public:
  Normal(const torch::Tensor &mean, const torch::Tensor &std) : mean(mean), stddev(std) {}
  torch::Tensor rsample();
  torch::Tensor rsampleAndKeep();
  torch::Tensor logProb(const torch::Tensor &value);

private:
  torch::Tensor mean;
  torch::Tensor stddev;
};

struct Actor {
  torch::nn::Linear net{nullptr};
  std::pair<torch::Tensor, torch::Tensor> sampleNormal(torch::Tensor state);
  std::pair<torch::Tensor, torch::Tensor> sampleAndKeep(torch::Tensor state);
};

struct Agent {
  Actor actor;
  torch::Tensor chooseAction(torch::Tensor observation);
  torch::Tensor chooseAndKeep(torch::Tensor observation);
};
