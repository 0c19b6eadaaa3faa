// Recall round 3 reproducer (false positive), from zjeffer/alphazero-general-cpp (src/lib/NeuralNetwork/
// NeuralNetwork.cpp 30-41, NeuralNetwork::Predict; src/lib/NeuralNetwork/Trainer.cpp 32-57, Trainer::Train,
// which calls m_network->Predict(data) on a std::shared_ptr<NeuralNetworkInterface> and runs backward() on the
// loss built from its result), reduced to one file.
// 'Predict' is evaluation code by its name, but it is also the training forward: the trainer reaches it through
// the abstract interface and trains through its result (a std::pair: predictions.second reaches backward()).
// The page exempts a function whose caller runs a backward pass on its result, with --cross-tu also a caller in
// another file. In one file the check sees it (silent); across files it does not: with --cross-tu, a
// non-virtual call of the same pair-returning function from the other file is reported too, while a function
// returning the tensor itself (fed to the loss in the other file) is silent: the pair's element reaching
// backward() in another file is what the summaries miss. The fix-it (a NoGradGuard in Predict) would make
// loss.backward() fail.
// Two translation units, as in the project: this file (Predict) and
// eval-predict-trained-through-interface-trainer.cpp (Trainer::Train, which includes this file with
// -DTRAINER_TU for the declarations). One file holding both is silent: the check sees the caller there.
// Run: libtorch-tidy --cross-tu -p DIR with a compile_commands.json listing the two files (commands in
// /work/recall3/report-a.md); clang-tidy on this file alone gives the single-file result.
// Expected: no warning; at bb02db5: [torch-eval-without-no-grad] at line 44, file by file and with --cross-tu.
// Fixed with --cross-tu: a virtual call's result reaching backward() is recorded for the interface method, and an
// override is asked through the methods it overrides (test/driver/cross-tu-interface.test). File by file it
// stays reported (no caller in its file): documented.
#include <torch/torch.h>
#include <memory>
#include <utility>

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
  std::pair<torch::Tensor, torch::Tensor> Predict(torch::Tensor &input) override;
  Net m_net{nullptr};
};

#ifndef TRAINER_TU
std::pair<torch::Tensor, torch::Tensor> NeuralNetwork::Predict(torch::Tensor &input) { return m_net->forward(input); }
#endif
