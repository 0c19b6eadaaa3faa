// Companion of eval-predict-trained-through-interface.cpp (recall round 3, false positive): the second
// translation unit, Trainer::Train, which trains through NeuralNetworkInterface::Predict.
#define TRAINER_TU
#include "eval-predict-trained-through-interface.cpp"

class Trainer {
public:
  void Train(torch::Tensor data, torch::Tensor target, torch::optim::Optimizer &optimizer);

private:
  std::shared_ptr<NeuralNetworkInterface> m_network;
};

void Trainer::Train(torch::Tensor data, torch::Tensor target, torch::optim::Optimizer &optimizer) {
  optimizer.zero_grad();
  auto predictions = m_network->Predict(data);
  auto loss = torch::mse_loss(predictions.second, target);
  loss.backward();
  optimizer.step();
}
