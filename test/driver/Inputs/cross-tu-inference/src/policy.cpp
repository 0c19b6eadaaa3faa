#include "agent.h"

torch::Tensor Policy::sample(torch::Tensor observation) {
  auto logits = net->forward(observation);
  return logits.softmax(1);
}

torch::Tensor Policy::sample_and_keep(torch::Tensor observation) {
  last = net->forward(observation);
  return last.softmax(1);
}
