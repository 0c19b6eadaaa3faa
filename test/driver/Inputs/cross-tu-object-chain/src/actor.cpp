#include "sac.h"

std::pair<torch::Tensor, torch::Tensor> Actor::sampleNormal(torch::Tensor state) {
  auto mu = net->forward(state);
  auto probabilities = Normal(mu, mu.exp());
  auto action = probabilities.rsample().tanh();
  auto logProbs = probabilities.logProb(action);
  return std::make_pair(action, logProbs);
}

std::pair<torch::Tensor, torch::Tensor> Actor::sampleAndKeep(torch::Tensor state) {
  auto mu = net->forward(state);
  auto probabilities = Normal(mu, mu.exp());
  auto action = probabilities.rsampleAndKeep().tanh();
  return std::make_pair(action, probabilities.logProb(action));
}
