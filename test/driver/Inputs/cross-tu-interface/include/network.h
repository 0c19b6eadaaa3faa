#pragma once
#include <torch/torch.h>
#include <utility>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear policy{nullptr}, value{nullptr};
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    return {policy->forward(x), value->forward(x)};
  }
};
TORCH_MODULE(Net);

class NetworkInterface {
public:
  virtual ~NetworkInterface() = default;
  virtual std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor &input) = 0;
};

class Network : public NetworkInterface {
public:
  std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor &input) override;
  Net net{nullptr};
};

class Evaluator {
public:
  torch::Tensor Predict(torch::Tensor &input);
  Net net{nullptr};
};
