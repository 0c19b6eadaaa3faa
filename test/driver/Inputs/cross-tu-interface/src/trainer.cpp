#include "network.h"
#include <memory>

void train(std::shared_ptr<NetworkInterface> network, torch::Tensor data, torch::Tensor target,
           torch::optim::Optimizer &optimizer) {
  optimizer.zero_grad();
  auto predictions = network->Predict(data);
  auto loss = torch::mse_loss(predictions.second, target);
  loss.backward();
  optimizer.step();
}

float score(Evaluator &evaluator, torch::Tensor data) {
  return evaluator.Predict(data).sum().item<float>();
}
