#include "network.h"

std::pair<torch::Tensor, torch::Tensor> Network::Predict(torch::Tensor &input) {
  return net->forward(input);
}

torch::Tensor Evaluator::Predict(torch::Tensor &input) { return net->forward(input).first; }
