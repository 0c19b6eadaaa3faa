// An agent whose policy is defined in another file (policy.cpp): act() picks
// the action of every environment step through it and keeps only the
// detached action; record() hands the observation to a method that stores
// the policy's output in a member (the look-alike).
#pragma once
#include <torch/torch.h>

struct Policy {
  torch::nn::Linear net{nullptr};
  torch::Tensor last;
  torch::Tensor sample(torch::Tensor observation);
  torch::Tensor sample_and_keep(torch::Tensor observation);
};

struct Agent {
  Policy policy;
  torch::Tensor act(torch::Tensor observation);
  torch::Tensor record(torch::Tensor observation);
};
