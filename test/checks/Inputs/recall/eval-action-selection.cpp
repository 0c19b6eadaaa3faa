// Recall reproducer (issue 35), from QuentinVacher-rl/SoftActorCritic-in-Cpp-using-LibTorch
// (src/softActorCritic.cpp, SoftActorCritic::chooseAction, called once per environment step by
// the episode loop of src/main.cpp), reduced.
// Expected: torch-eval-without-no-grad (or a check of its family) at the actor's forward pass in
// chooseAction (line 23): the function returns the sampled action through detach(), so the graph
// the forward pass records on every environment step is built only to be dropped; the training
// step (learn) runs its own forward passes. Action selection is inference even when the function
// is not named like evaluation.
//   expected warning (line 23): forward pass ... runs with autograd enabled ... [torch-eval-without-no-grad]
#include <torch/torch.h>

struct ActorImpl : torch::nn::Module {
  ActorImpl() : fc(register_module("fc", torch::nn::Linear(2, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x).tanh(); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Actor);

struct Agent {
  Actor actor;
  torch::optim::Adam *opt;
  torch::Tensor chooseAction(torch::Tensor observation) {
    auto action = actor(observation);
    return action.detach();
  }
  void learn(torch::Tensor states) {
    auto loss = actor(states).pow(2).mean();
    opt->zero_grad();
    loss.backward();
    opt->step();
  }
};

void run(Agent &algo, torch::Tensor (*env_step)(torch::Tensor), int episodes) {
  torch::Tensor state = torch::zeros({1, 2});
  for (int i = 0; i < episodes; i++) {
    auto action = algo.chooseAction(state);
    state = env_step(action);
    algo.learn(state);
  }
}
