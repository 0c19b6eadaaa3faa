#include "sac.h"

std::vector<torch::Tensor> seen_means;

torch::Tensor Normal::rsample() { return mean + torch::ones_like(mean) * stddev; }

torch::Tensor Normal::rsampleAndKeep() {
  seen_means.push_back(mean);
  return mean + torch::ones_like(mean) * stddev;
}

torch::Tensor Normal::logProb(const torch::Tensor &value) {
  return -(value - mean) * (value - mean) / (2 * stddev * stddev);
}
