// Recall round 3 reproducer (miss), from mhubii/ppo_libtorch (TrainPPO.cpp 66-133: the rollout loop of main;
// Models.h 44-94: forward and log_prob), reduced.
// Every environment step runs the actor-critic with autograd on and stores the step's log-probability (it
// carries the actor's graph through mu_) in a local vector declared before the loop. The update, every
// n_steps steps, reads the vector only as torch::cat(log_probs).detach(), then clears it: the graphs of all
// n_steps (2048) forward passes stay alive until then, for nothing. The page flags this shape for a data
// member ("A data member that every reader takes detached is flagged ... even when it is emptied after each
// update"); the local vector is exempt because it is cleared in the loop.
// Expected: a [torch-history-in-container] warning at line 43; at bb02db5: none. Fixed: a local emptied at the
// update whose every read is detached (FieldReads.h localReads).
#include <torch/torch.h>
#include <vector>

namespace at {
Tensor normal(const Tensor &mean, const Tensor &std); // not in the mock headers
}

struct ActorCriticImpl : torch::nn::Module {
  torch::nn::Linear a_lin{nullptr}, c_lin{nullptr};
  torch::Tensor mu_, log_std_;
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor x) {
    mu_ = torch::tanh(a_lin->forward(x));
    torch::Tensor val = c_lin->forward(x);
    torch::NoGradGuard no_grad;
    torch::Tensor action = at::normal(mu_, log_std_.exp()); // .expand_as(mu_) in the project
    return std::make_tuple(action, val);
  }
  torch::Tensor log_prob(torch::Tensor action) {
    torch::Tensor var = (log_std_ + log_std_).exp();
    return -((action - mu_) * (action - mu_)) / (2 * var) - log_std_;
  }
};
TORCH_MODULE(ActorCritic);

void ppo_update(ActorCritic &ac, torch::Tensor &states, torch::Tensor &log_probs, torch::optim::Optimizer &opt);

void train(ActorCritic &ac, torch::optim::Optimizer &opt, torch::Tensor env_state, unsigned n_iter, unsigned n_steps) {
  std::vector<torch::Tensor> states, actions, log_probs;
  unsigned c = 0;
  for (unsigned i = 0; i < n_iter; i++) {
    states.push_back(env_state);
    auto av = ac->forward(states[c]);
    actions.push_back(std::get<0>(av));
    log_probs.push_back(ac->log_prob(actions[c]));
    c++;
    if (c % n_steps == 0) {
      torch::Tensor t_log_probs = torch::cat(log_probs).detach();
      torch::Tensor t_states = torch::cat(states);
      ppo_update(ac, t_states, t_log_probs, opt);
      c = 0;
      states.clear();
      actions.clear();
      log_probs.clear();
    }
  }
}
