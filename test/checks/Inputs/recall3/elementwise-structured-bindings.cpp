// Recall round 3 reproducer (misses), from zjeffer/alphazero-general-cpp (src/lib/MCTS/MCTS.cpp 98-134,
// MCTS::Expand, run on every simulation of the self-play search; src/lib/DataManager/MemoryElement.hpp 49-52,
// ConvertToInputAndOutput, run by Dataset::get for every sample), reduced.
// Two loops access one element per valid move, and both escape the check through a structured binding:
// - in expand(), the tensor is a structured binding ('auto [policyOutput, valueOutput] = Predict(input)'): the
//   policy output (on the GPU when there is one) is read one .item<float>() per move; with 'auto out =
//   Predict(input); torch::Tensor policyOutput = out.first;' the check warns (the page names "a named tensor
//   (a local, parameter or data member)");
// - in ConvertToOutput(), the range-for's element is a structured binding ('for (auto const &[move, prob] :
//   moves)'): the sample's target is written one number per move; with 'for (auto const &mp : moves)
//   output[mp.first->GetIndex()] = mp.second;' the check warns.
// Expected: [torch-elementwise-access-in-loop] warnings at lines 38 and 50; at bb02db5: none. Fixed: a
// structured binding names a tensor (namedTensor) and reads the range-for's element (indicesUse).
#include <torch/torch.h>
#include <memory>
#include <vector>

struct Move {
  int GetRow() const;
  int GetColumn() const;
  int GetIndex() const;
  void SetPriorProbability(float p);
};

struct Node {
  std::vector<std::shared_ptr<Move>> GetValidMoves() const;
  void AddChild(std::shared_ptr<Move> move);
};

std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor input);

float expand(Node &node, torch::Tensor input) {
  auto [policyOutput, valueOutput] = Predict(input);
  policyOutput = policyOutput.view({3, 3});
  auto validMoves = node.GetValidMoves();
  for (auto const &move : validMoves) {
    // get the prior from the policy output
    move->SetPriorProbability(
        policyOutput[move->GetRow()][move->GetColumn()].item<float>());
    node.AddChild(move);
  }
  return valueOutput.view(1).item<float>();
}

struct MemoryElement {
  std::vector<std::pair<std::shared_ptr<Move>, float>> moves;
  torch::Tensor ConvertToOutput() const {
    torch::Tensor output = torch::zeros({10});
    for (auto const &[move, prob] : moves) {
      // one select and one fill per move
      output[move->GetIndex()] = prob;
    }
    return output.unsqueeze(0);
  }
};
