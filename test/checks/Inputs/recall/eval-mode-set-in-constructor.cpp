// Recall reproducer (issue 35), from AllIAskOfYou/MLA (TorchProject2/DQN.cpp: the constructor puts
// the target network in evaluation mode, DQN::selfPlay runs it for every opponent move that
// GameSession::start's request loop asks for), reduced.
// Expected: torch-eval-without-no-grad at the target network's forward pass in selfPlay (line 24):
// the module is in evaluation mode for its whole life (eval() in the constructor, never train()),
// it is never trained through this path, and the forward pass records a graph that nothing
// backpropagates (only an action index leaves the function). Evaluation mode follows the module,
// not the function that called eval().
//   expected warning (line 24): forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
#include <torch/torch.h>

struct QNetImpl : torch::nn::Module {
  QNetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(QNet);

class DQN {
public:
  DQN(QNet q, QNet target) : qNet(q), qNetTarget(target) { qNetTarget->eval(); }

  torch::Tensor selfPlay(torch::Tensor state) {
    torch::Tensor out = qNetTarget->forward(state);
    return out.argmax(1);
  }

private:
  QNet qNet, qNetTarget;
};

void serve(DQN &dqn, torch::Tensor (*next_state)(), bool (*running)()) {
  while (running()) {
    auto action = dqn.selfPlay(next_state());
    (void)action;
  }
}
