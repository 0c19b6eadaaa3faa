// Recall round 3 reproducer (miss), from zjeffer/alphazero-general-cpp (src/lib/MCTS/MCTS.cpp 93-139,
// MCTS::Expand, called for every simulation by MCTS::RunSimulations 36-45; src/lib/NeuralNetwork/
// NeuralNetwork.cpp 30-41, NeuralNetwork::Predict, which Trainer::Train also calls to train), reduced.
// Every simulation of the self-play search runs the policy/value network with autograd on (no guard anywhere
// in the project) and only floats leave Expand: the priors read with item() and the returned value. Expand is
// inference by what it does; the forward pass is reached through the abstract interface
// NeuralNetworkInterface::Predict (a virtual call). The project's Predict cannot hold the guard itself:
// Trainer::Train calls it and runs backward() on its result.
// Expected: a [torch-eval-without-no-grad] warning at line 48 (the call of Predict in Expand); today: none
// (the torch-elementwise-access-in-loop warning at line 51 is right, and is not what this file is about).
#include <torch/torch.h>
#include <memory>
#include <utility>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear policy{nullptr}, value{nullptr};
  std::pair<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    return {policy->forward(x), value->forward(x)};
  }
};
TORCH_MODULE(Net);

class NeuralNetworkInterface {
public:
  virtual ~NeuralNetworkInterface() = default;
  virtual std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor &input) = 0;
};

class NeuralNetwork : public NeuralNetworkInterface {
public:
  std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor &input) override { return m_net->forward(input); }
  Net m_net{nullptr};
};

struct Move {
  int GetIndex() const;
  void SetPriorProbability(float p);
};

struct Leaf {
  torch::Tensor BoardToInput() const;
  std::vector<std::shared_ptr<Move>> GetValidMoves() const;
};

float Expand(Leaf &leaf, NeuralNetworkInterface &network) {
  auto input = leaf.BoardToInput();
  auto out = network.Predict(input);
  torch::Tensor policyOutput = out.first.view({9});
  for (auto const &move : leaf.GetValidMoves())
    move->SetPriorProbability(policyOutput.index({move->GetIndex()}).item<float>());
  return out.second.view(1).item<float>();
}

void RunSimulations(std::vector<Leaf> &leaves, NeuralNetworkInterface &network) {
  for (auto &leaf : leaves)
    Expand(leaf, network);
}

void TrainStep(NeuralNetwork &network, torch::Tensor data, torch::Tensor target, torch::optim::Optimizer &opt) {
  opt.zero_grad();
  auto predictions = network.Predict(data);
  auto loss = torch::mse_loss(predictions.second, target);
  loss.backward();
  opt.step();
}
