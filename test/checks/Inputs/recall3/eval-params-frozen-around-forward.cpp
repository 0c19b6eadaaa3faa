// Recall round 3 reproducer (false positive), from ianlienfa/BBGym-RL (include/util/TorchUtil.h 9-16, the
// GRAD_TOGGLE macro; include/search_modules/Net/PPO/NetPPO.cpp 560-602, PPO::NetPPOImpl::step;
// include/search_modules/strategy_providers/DDPRLabeler.cpp 139-171 and 291-312, the DDPR labeler's
// inference), reduced.
// The project does not hold a guard at inference: it switches every parameter of the networks to
// requires_grad_(false) before the forward pass and back to true after it. With no parameter and no input
// requiring grad, autograd records nothing: no graph, no saved activations. The check (rule 4, inference by
// what it does; in the project with --cross-tu, where the networks' forward is in other files) reports the
// forward as keeping its activations and graph for nothing: 5 findings in the project (NetPPO.cpp 591,
// DDPRLabeler.cpp 159, 305, PPOLabeler.cpp 135, oneRjSumCjSearch.cpp 209, the last two through the calls).
// Expected: no warning; at bb02db5: [torch-eval-without-no-grad] at line 47 (file by file: the forward is in the
// file). Fixed: a forward pass after a ParamsFrozen loop over its module (FunctionFacts::runsFrozen).
#include <torch/torch.h>
#include <vector>

#define GRAD_TOGGLE(net, on)                                                                                \
  if (on) {                                                                                                 \
    for (auto &p : net->parameters())                                                                       \
      p.requires_grad_(true);                                                                               \
  } else {                                                                                                  \
    for (auto &p : net->parameters())                                                                       \
      p.requires_grad_(false);                                                                              \
  }

struct ActorImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor s) { return fc->forward(s).softmax(-1); }
};
TORCH_MODULE(Actor);

struct CriticImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor s) { return fc->forward(s); }
};
TORCH_MODULE(Critic);

struct StepOutput {
  int64_t a;
  float v;
};

struct Net {
  Actor pi{nullptr};
  Critic q{nullptr};
  StepOutput step(torch::Tensor s) {
    GRAD_TOGGLE(pi, false);
    GRAD_TOGGLE(q, false);
    torch::Tensor dist_out = pi->forward(s);
    int64_t a = torch::argmax(dist_out).item<int64_t>();
    float v = q->forward(s).item<float>();
    GRAD_TOGGLE(pi, true);
    GRAD_TOGGLE(q, true);
    return StepOutput{a, v};
  }
};
