// RUN: %check_torch_tidy %s torch-history-in-container %t
// A data member that every reader takes detached: a PPO rollout stores each
// step's log-probability and value in another object's vectors (as
// lolmanjo/LibTorch_PPO's TrainingController does), and the update reads them
// as torch::cat(...).detach(). Each stored graph is kept for nothing until the
// vectors are cleared. The classes are defined in this file, so no other file
// can read the members (across files: test/driver/cross-tu-field-reads.test).
#include <torch/torch.h>
#include <vector>

struct PolicyImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::Tensor logProb(torch::Tensor a) { return a.log_softmax(1); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Policy);

struct Agent {
  Policy model;
  std::vector<torch::Tensor> states, logProbs, values;
};

void act(Agent *agent, torch::Tensor obs) {
  agent->states.push_back(obs);
  auto out = agent->model->forward(obs);
  auto logProb = agent->model->logProb(out);
  agent->logProbs.push_back(logProb);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'logProbs' keeps a tensor that carries autograd history, but every read of 'logProbs' detaches it: each graph stays alive for nothing until 'logProbs' is emptied; store a detached tensor [torch-history-in-container]
  // CHECK-MESSAGES: :[[@LINE+12]]:40: note: 'logProbs' is read here, detached
  // CHECK-MESSAGES: :[[@LINE-5]]:28: note: the history comes from this call
  // CHECK-FIXES: agent->logProbs.push_back(logProb.detach());
  agent->values.push_back(out.sum(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'values' keeps a tensor that carries autograd history, but every read of 'values' detaches it
  // CHECK-MESSAGES: :[[@LINE+8]]:40: note: 'values' is read here, detached
  // CHECK-MESSAGES: :[[@LINE-10]]:28: note: the history comes from this call
  // CHECK-FIXES: agent->values.push_back(out.sum(1).detach());
}

void update(Agent *agent, torch::optim::Adam &opt) {
  auto states = torch::cat(agent->states);
  auto oldLogProbs = torch::cat(agent->logProbs).detach();
  auto oldValues = torch::stack(agent->values).detach();
  auto loss = (agent->model->logProb(agent->model->forward(states)) - oldLogProbs).mean() +
              oldValues.mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
  agent->states.clear();
  agent->logProbs.clear();
  agent->values.clear();
}

// ---- look-alikes ---------------------------------------------------------------

// REINFORCE: the stored log-probabilities are backpropagated at the end of the
// episode: the graphs are wanted.
struct Episode {
  Policy model;
  std::vector<torch::Tensor> logProbs;
};
void reinforce_step(Episode &e, torch::Tensor obs) {
  e.logProbs.push_back(e.model->logProb(e.model->forward(obs)));
}
void reinforce_update(Episode &e, torch::Tensor returns, torch::optim::Adam &opt) {
  auto loss = -(torch::cat(e.logProbs) * returns).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
  e.logProbs.clear();
}

// Read detached in one place and copied in another.
struct Copied {
  Policy model;
  std::vector<torch::Tensor> outputs;
};
void copied_step(Copied &c, torch::Tensor obs) { c.outputs.push_back(c.model->forward(obs)); }
torch::Tensor copied_mean(Copied &c) { return torch::cat(c.outputs).detach().mean(); }
std::vector<torch::Tensor> copied_all(Copied &c) { return c.outputs; }

// An element read with its history.
struct Elementwise {
  Policy model;
  std::vector<torch::Tensor> outputs;
};
void element_step(Elementwise &e, torch::Tensor obs) { e.outputs.push_back(e.model->forward(obs)); }
torch::Tensor element_last(Elementwise &e) { return e.outputs.back() * 2; }
float element_first(Elementwise &e) { return e.outputs[0].detach().sum().item<float>(); }

// Stored under a guard: no history.
struct Guarded {
  Policy model;
  std::vector<torch::Tensor> outputs;
};
void guarded_step(Guarded &g, torch::Tensor obs) {
  torch::NoGradGuard no_grad;
  g.outputs.push_back(g.model->forward(obs));
}
torch::Tensor guarded_mean(Guarded &g) { return torch::cat(g.outputs).detach().mean(); }

// The value comes from the caller: whether it has history is the caller's.
struct FromCaller {
  std::vector<torch::Tensor> outputs;
};
void from_caller(FromCaller &f, torch::Tensor t) { f.outputs.push_back(t); }
torch::Tensor from_caller_mean(FromCaller &f) { return torch::cat(f.outputs).detach().mean(); }

// Never read: nothing says what a reader would want.
struct Unread {
  Policy model;
  std::vector<torch::Tensor> outputs;
};
void unread_step(Unread &u, torch::Tensor obs) { u.outputs.push_back(u.model->forward(obs)); }

// A local rollout emptied at each update: every read of it detaches it, so
// each step's graph is kept for nothing until the update.
void ppo_update(torch::Tensor states, torch::Tensor log_probs, torch::optim::Adam &opt);
void rollout(Policy &policy, torch::optim::Adam &opt, torch::Tensor obs, int n_iter, int n_steps) {
  std::vector<torch::Tensor> states, log_probs;
  for (int i = 0; i < n_iter; ++i) {
    states.push_back(obs);
    log_probs.push_back(policy->logProb(policy->forward(obs)));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'log_probs' keeps a tensor that carries autograd history, but every read of 'log_probs' detaches it
    // CHECK-MESSAGES: :[[@LINE+3]]:46: note: 'log_probs' is read here, detached
    // CHECK-MESSAGES: :[[@LINE-3]]:49: note: the history comes from this call
    if ((i + 1) % n_steps == 0) {
      torch::Tensor t_log_probs = torch::cat(log_probs).detach();
      ppo_update(torch::cat(states), t_log_probs, opt);
      states.clear();
      log_probs.clear();
    }
  }
}
// CHECK-FIXES: log_probs.push_back(policy->logProb(policy->forward(obs)).detach());

// Look-alikes: a local emptied at the update and read with its history, or
// used otherwise (iterated, handed to a function).
void rollout_trained(Policy &policy, torch::optim::Adam &opt, torch::Tensor obs, int n) {
  std::vector<torch::Tensor> log_probs;
  for (int i = 0; i < n; ++i) {
    log_probs.push_back(policy->logProb(policy->forward(obs)));
    if (log_probs.size() == 16) {
      torch::cat(log_probs).sum().backward();
      log_probs.clear();
    }
  }
}
void consume(const std::vector<torch::Tensor> &v);
void rollout_handed(Policy &policy, torch::Tensor obs, int n) {
  std::vector<torch::Tensor> log_probs;
  for (int i = 0; i < n; ++i) {
    log_probs.push_back(policy->logProb(policy->forward(obs)));
    if (i % 16 == 0) {
      torch::Tensor all = torch::cat(log_probs).detach();
      consume(log_probs);
      log_probs.clear();
    }
  }
}
