// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
// InferenceByUse false: the rule is off, and nothing here is evaluation code
// by its name, an eval() region, a loaded module or a thread body.
// RUN: %clang_tidy --load %plugin --checks='-*,torch-eval-without-no-grad' -config="{CheckOptions: {torch-eval-without-no-grad.InferenceByUse: false}}" %s -- -std=c++17 -isystem %mocks 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty --implicit-check-not=warning:
// OFF-NOT: warning:
// Inference by what a function does (rule d): a forward pass with autograd on
// in a function that trains nothing, directly or through its callees, lets no
// value with autograd history leave it, and whose callers here train nothing
// in their own bodies. Names say nothing here: none of these functions is
// named like evaluation.
#include <torch/torch.h>

struct ActorImpl : torch::nn::Module {
  ActorImpl() : fc(register_module("fc", torch::nn::Linear(2, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x).tanh(); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Actor);

// A module whose forward keeps its output in a member (a recurrent state):
// the graph outlives the call through the module.
struct StatefulImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    hidden = fc(x);
    return hidden;
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor hidden;
};
TORCH_MODULE(Stateful);

struct Seq2SeqImpl : torch::nn::Module {
  torch::Tensor encode(torch::Tensor src) { return encoder(src); }
  torch::Tensor decode(torch::Tensor tgt, torch::Tensor memory) { return decoder(tgt) + memory; }
  torch::nn::Linear encoder{nullptr}, decoder{nullptr};
  torch::Tensor forward(torch::Tensor src, torch::Tensor tgt) { return decode(tgt, encode(src)); }
};
TORCH_MODULE(Seq2Seq);

// ---- positives ---------------------------------------------------------------

// Action selection: the actor's forward on every environment step, only a
// detached action leaves.
struct Agent {
  Actor actor;
  torch::optim::Adam *opt;

  torch::Tensor chooseAction(torch::Tensor observation) {
    auto action = actor(observation);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass runs with autograd enabled in a function that never backpropagates: only detached values leave it, so its activations and graph are kept for nothing; hold a 'torch::NoGradGuard' while it runs [torch-eval-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'chooseAction' is inference by what it does: neither it, nor the functions it calls, nor its callers here run a backward pass or an optimizer step, and no value with autograd history leaves it
    // CHECK-MESSAGES: :[[@LINE+31]]:19: note: 'chooseAction' is called here with autograd enabled
    return action.detach();
  }
  // CHECK-FIXES: torch::Tensor chooseAction(torch::Tensor observation) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
  // CHECK-FIXES-NEXT: auto action = actor(observation);

  // Greedy choice: only an index leaves (argmax, item).
  int64_t greedyAction(torch::Tensor observation) {
    torch::Tensor q = actor->forward(observation);
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: forward pass runs with autograd enabled in a function that never backpropagates
    // CHECK-MESSAGES: :[[@LINE-3]]:11: note: 'greedyAction' is inference by what it does
    return q.argmax(1).item<int64_t>();
  }
  // CHECK-FIXES: int64_t greedyAction(torch::Tensor observation) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
  // CHECK-FIXES-NEXT: torch::Tensor q = actor->forward(observation);

  void learn(torch::Tensor states) {
    auto loss = actor(states).pow(2).mean();
    opt->zero_grad();
    loss.backward();
    opt->step();
  }
};

// The episode loop calls the action selection and, separately, the training
// step: the loop's own body runs no backward pass.
void episodes(Agent &algo, torch::Tensor (*env_step)(torch::Tensor), int n) {
  torch::Tensor state = torch::zeros({1, 2});
  for (int i = 0; i < n; i++) {
    auto action = algo.chooseAction(state);
    int64_t best = algo.greedyAction(state);
    state = env_step(action);
    algo.learn(state);
  }
}

// Greedy decoding: the encoder graph held for the whole loop, a decoder graph
// per token; only token ids leave.
torch::Tensor greedy_decode(Seq2Seq &model, torch::Tensor src, int64_t max_len, int64_t eos) {
  torch::Tensor memory = model->encode(src);
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'greedy_decode' is inference by what it does
  // CHECK-MESSAGES: :[[@LINE-63]]:52: note: 'encode' runs this forward pass
  torch::Tensor ys = torch::ones({1, 1}, torch::kLong);
  for (int64_t i = 0; i < max_len; i++) {
    torch::Tensor out = model->decode(ys, memory);
    torch::Tensor next_word = out.argmax(1);
    int64_t next_word_int = next_word.item<int64_t>();
    ys = torch::cat({ys, next_word.unsqueeze(0)}, 0);
    if (next_word_int == eos)
      break;
  }
  return ys;
}
// CHECK-FIXES: torch::Tensor greedy_decode(Seq2Seq &model, torch::Tensor src, int64_t max_len, int64_t eos) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: torch::Tensor memory = model->encode(src);

// eval() in the constructor, the forward later: the function is judged by
// what it does, wherever eval() was called.
class DQN {
public:
  DQN(Actor q, Actor target) : qNet(q), qNetTarget(target) { qNetTarget->eval(); }

  torch::Tensor selfPlay(torch::Tensor state) {
    torch::Tensor out = qNetTarget->forward(state);
    // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: forward pass runs with autograd enabled in a function that never backpropagates
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'selfPlay' is inference by what it does
    return out.argmax(1);
  }
  // CHECK-FIXES: torch::Tensor selfPlay(torch::Tensor state) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;

private:
  Actor qNet, qNetTarget;
};

// ---- look-alikes: silent -------------------------------------------------------

// A forward helper used by training: its result carries history.
torch::Tensor policy_logits(Actor &actor, torch::Tensor x) { return actor(x) * 2; }

void train_policy(Actor &actor, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = policy_logits(actor, x).mean();
  loss.backward();
  opt.step();
}

// Outputs stored in members: a rollout buffer read later with history.
struct Rollout {
  Actor actor;
  std::vector<torch::Tensor> values;
  torch::Tensor last;

  int64_t act(torch::Tensor obs) {
    auto v = actor(obs);
    values.push_back(v);
    return v.argmax().item<int64_t>();
  }
  int64_t actKeepLast(torch::Tensor obs) {
    auto v = actor(obs);
    last = v;
    return v.argmax().item<int64_t>();
  }
  // An out-parameter receives the output with its history.
  int64_t actInto(torch::Tensor obs, torch::Tensor &out) {
    out = actor(obs);
    return out.argmax().item<int64_t>();
  }
};

// REINFORCE: the log-probability is kept for the backward pass of the update.
struct Reinforce {
  Actor policy;
  std::vector<torch::Tensor> log_probs;
  int64_t select(torch::Tensor state) {
    auto probs = policy(state).softmax(1);
    auto action = probs.argmax(1);
    log_probs.push_back(probs.log_softmax(1));
    return action.item<int64_t>();
  }
  std::pair<int64_t, torch::Tensor> selectWithLogProb(torch::Tensor state) {
    auto logits = policy(state);
    return {logits.argmax().item<int64_t>(), logits.log_softmax(1)};
  }
};

// A detached target in a training step that calls backward itself.
void dqn_step(Actor &q, Actor &target, torch::optim::SGD &opt, torch::Tensor s, torch::Tensor s2) {
  auto y = target(s2).detach();
  auto loss = (q(s) - y).pow(2).mean();
  loss.backward();
  opt.step();
}

// The target in a helper; its caller backpropagates through a loss built
// from it.
torch::Tensor td_target(Actor &target, torch::Tensor s2) { return target(s2).detach() * 0.99; }

void dqn_update(Actor &q, Actor &target, torch::optim::SGD &opt, torch::Tensor s, torch::Tensor s2) {
  auto y = td_target(target, s2);
  auto loss = (q(s) - y).pow(2).mean();
  loss.backward();
  opt.step();
}

// Called only under a guard.
int64_t pick(Actor &actor, torch::Tensor s) { return actor(s).argmax().item<int64_t>(); }

void play(Actor &actor, torch::Tensor s) {
  torch::NoGradGuard no_grad;
  int64_t a = pick(actor, s);
}

// Already guarded in its own body.
int64_t pickGuarded(Actor &actor, torch::Tensor s) {
  torch::NoGradGuard no_grad;
  return actor(s).argmax().item<int64_t>();
}

// A helper that trains: the forward's graph is wanted.
void fit_step(Actor &actor, torch::optim::SGD &opt, torch::Tensor x) {
  actor(x).sum().backward();
  opt.step();
}
int64_t act_and_learn(Actor &actor, torch::optim::SGD &opt, torch::Tensor x) {
  auto a = actor(x).argmax().item<int64_t>();
  fit_step(actor, opt, x);
  return a;
}

// The output is handed to a function that keeps it.
std::vector<torch::Tensor> kept;
void keep(torch::Tensor t) { kept.push_back(t); }
int64_t act_and_keep(Actor &actor, torch::Tensor x) {
  auto out = actor(x);
  keep(out);
  return out.argmax().item<int64_t>();
}

// A value computed from a parameter of the caller is returned: a guard over
// the body would cut the history the argument brings.
torch::Tensor masked(Actor &actor, torch::Tensor x) {
  auto idx = actor(x).argmax(1);
  return x * 2 + idx;
}

// A stateful module keeps its output in a member.
int64_t stepStateful(Stateful &rnn, torch::Tensor x) {
  return rnn(x).argmax().item<int64_t>();
}

// A lambda may carry the output anywhere.
std::function<torch::Tensor()> deferred(Actor &actor, torch::Tensor x) {
  auto out = actor(x);
  return [out] { return out; };
}

// The returned value comes from a function this file does not define: it may
// run a forward pass of its own, whose history the caller wants.
torch::Tensor policy_head(torch::Tensor features);
torch::Tensor act_through_head(Actor &encoder, torch::Tensor x) {
  auto features = encoder(x).argmax(1);
  auto out = policy_head(features);
  return out;
}

// Decoding as madcato/libtorch-lm writes it: the inputs moved to the device in
// place (the caller gets its own tensors back, converted), the next token as
// the indices of torch::max (no gradient).
torch::Tensor decode_on(Seq2Seq &model, torch::Tensor &src, torch::Tensor mask, int64_t max_len,
                        const torch::Device &device) {
  src = src.to(device);
  mask = mask.to(device);
  torch::Tensor memory = model->encode(src);
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-6]]:15: note: 'decode_on' is inference by what it does
  torch::Tensor ys = torch::ones({1, 1}, torch::kLong);
  for (int64_t i = 0; i < max_len; i++) {
    torch::Tensor prob = model->decode(ys, memory);
    std::tuple<torch::Tensor, torch::Tensor> best = torch::max(prob, 1);
    torch::Tensor next_word = std::get<1>(best);
    ys = torch::cat({ys, next_word.unsqueeze(0)}, 0);
  }
  return ys;
}
// CHECK-FIXES: const torch::Device &device) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: src = src.to(device);

// The values of torch::max keep the forward's history.
torch::Tensor best_values(Actor &actor, torch::Tensor x) {
  auto best = torch::max(actor(x), 1);
  return std::get<0>(best);
}

// An out-parameter receives a value computed from another parameter.
int64_t act_and_copy(Actor &actor, torch::Tensor &out, torch::Tensor x) {
  out = x.to(torch::kFloat);
  return actor(x).argmax().item<int64_t>();
}

// ---- local objects of the user's classes ---------------------------------------

// A distribution built from the actor's outputs, as SAC's sampleNormal does:
// a local object whose constructor stores its arguments in its members and
// whose methods keep nothing; it ends with the function, so only the
// detached sample leaves.
class Normal {
public:
  Normal(const torch::Tensor &mean, const torch::Tensor &std)
      : mean(mean), stddev(std), var(std * std) {}
  torch::Tensor rsample() { return mean + torch::ones_like(mean) * stddev; }
  torch::Tensor logProb(const torch::Tensor &value);

private:
  const torch::Tensor mean;
  const torch::Tensor stddev;
  const torch::Tensor var;
};
torch::Tensor Normal::logProb(const torch::Tensor &value) {
  return -(value - mean) * (value - mean) / (2 * var);
}

torch::Tensor sample_action(Actor &actor, torch::Tensor obs) {
  auto mu = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-3]]:15: note: 'sample_action' is inference by what it does
  auto dist = Normal(mu, mu.exp());
  auto action = dist.rsample();
  auto logp = dist.logProb(action);
  return (action + logp).detach();
}

// The same with direct initialisation.
int64_t sample_index(Actor &actor, torch::Tensor obs) {
  auto mu = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'sample_index' is inference by what it does
  Normal dist(mu, mu.exp());
  return dist.rsample().argmax().item<int64_t>();
}

// Look-alikes: the object, or what it holds, may outlive the call.

// A method that keeps what the object holds.
std::vector<torch::Tensor> memory;
class Recorder {
public:
  explicit Recorder(torch::Tensor t) : value(t) {}
  void remember() { memory.push_back(value); }

private:
  torch::Tensor value;
};
int64_t sample_and_record(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Recorder r(out);
  r.remember();
  return out.argmax().item<int64_t>();
}

// The object handed to a function (which may keep it).
void log_distribution(const Normal &d);
int64_t sample_and_log(Actor &actor, torch::Tensor obs) {
  auto mu = actor(obs);
  Normal dist(mu, mu.exp());
  log_distribution(dist);
  return dist.rsample().argmax().item<int64_t>();
}

// The object copied into a container of someone else.
struct Policy {
  std::vector<Normal> seen;
  int64_t act(Actor &actor, torch::Tensor obs) {
    auto mu = actor(obs);
    Normal dist(mu, mu.exp());
    seen.push_back(dist);
    return dist.rsample().argmax().item<int64_t>();
  }
};

// A constructor that keeps its argument outside the object.
class Registered {
public:
  explicit Registered(torch::Tensor t) : value(t) { memory.push_back(t); }
  torch::Tensor get() { return value; }

private:
  torch::Tensor value;
};
int64_t sample_registered(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Registered r(out);
  return r.get().argmax().item<int64_t>();
}

// A member initialiser that hands its argument to a function that keeps it
// (the constructor's body is empty: the initialiser alone lets it leave).
torch::Tensor stash(const torch::Tensor &t) {
  memory.push_back(t);
  return t;
}
class Stashing {
public:
  explicit Stashing(torch::Tensor t) : value(stash(t)) {}
  torch::Tensor get() { return value; }

private:
  torch::Tensor value;
};
int64_t sample_stashing(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Stashing s(out);
  return s.get().argmax().item<int64_t>();
}

// A destructor that does something with what the object holds.
class Flushing {
public:
  explicit Flushing(torch::Tensor t) : value(t) {}
  ~Flushing() { memory.push_back(value); }
  torch::Tensor get() { return value; }

private:
  torch::Tensor value;
};
int64_t sample_flushing(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Flushing f(out);
  return f.get().argmax().item<int64_t>();
}

// A constructor this file does not define.
class Opaque {
public:
  explicit Opaque(torch::Tensor t);
  torch::Tensor get() { return value; }

private:
  torch::Tensor value;
};
int64_t sample_opaque(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Opaque o(out);
  return o.get().argmax().item<int64_t>();
}

// A method result that carries the object's history is stored.
std::vector<torch::Tensor> samples;
int64_t sample_and_store(Actor &actor, torch::Tensor obs) {
  auto mu = actor(obs);
  Normal dist(mu, mu.exp());
  samples.push_back(dist.rsample());
  return mu.argmax().item<int64_t>();
}

// A method with a body this file does not show, on a class of the user's.
class Remote {
public:
  explicit Remote(torch::Tensor t) : value(t) {}
  torch::Tensor get();

private:
  torch::Tensor value;
};
int64_t sample_remote(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  Remote r(out);
  return r.get().argmax().item<int64_t>();
}

// ---- parameters switched to requires_grad(false) around the forward ---------

// Every parameter of the module frozen before the forward pass (and switched
// back after it): with data for input, autograd records nothing.
int64_t frozen_action(Actor &actor, torch::Tensor obs) {
  for (auto &p : actor->parameters())
    p.requires_grad_(false);
  auto out = actor(obs);
  for (auto &p : actor->parameters())
    p.requires_grad_(true);
  return out.argmax().item<int64_t>();
}

// The same through set_requires_grad, in a block.
int64_t frozen_set(Actor &actor, torch::Tensor obs) {
  for (torch::Tensor &p : actor->parameters()) {
    p.set_requires_grad(false);
  }
  return actor(obs).argmax().item<int64_t>();
}

// Switched back on before the forward pass: it records its graph.
int64_t thawed_action(Actor &actor, torch::Tensor obs) {
  for (auto &p : actor->parameters())
    p.requires_grad_(false);
  for (auto &p : actor->parameters())
    p.requires_grad_(true);
  auto out = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-7]]:9: note: 'thawed_action' is inference by what it does
  return out.argmax().item<int64_t>();
}

// Another module's parameters frozen: the forward's own module records.
int64_t other_module_frozen(Actor &actor, Actor &target, torch::Tensor obs) {
  for (auto &p : target->parameters())
    p.requires_grad_(false);
  auto out = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-5]]:9: note: 'other_module_frozen' is inference by what it does
  return out.argmax().item<int64_t>();
}

// Frozen with a value not known here, or only the module's own parameters
// (not its submodules'): not known to record nothing.
int64_t maybe_frozen(Actor &actor, torch::Tensor obs, bool train) {
  for (auto &p : actor->parameters())
    p.requires_grad_(train);
  auto out = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-5]]:9: note: 'maybe_frozen' is inference by what it does
  return out.argmax().item<int64_t>();
}
int64_t own_parameters_frozen(Actor &actor, torch::Tensor obs) {
  for (auto &p : actor->parameters(/*recurse=*/false))
    p.requires_grad_(false);
  auto out = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-5]]:9: note: 'own_parameters_frozen' is inference by what it does
  return out.argmax().item<int64_t>();
}

// Frozen after the forward pass: too late.
int64_t frozen_after(Actor &actor, torch::Tensor obs) {
  auto out = actor(obs);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'frozen_after' is inference by what it does
  for (auto &p : actor->parameters())
    p.requires_grad_(false);
  return out.argmax().item<int64_t>();
}

// A helper whose only forward pass runs frozen is no forward pass where it is
// called.
int64_t act_through_frozen(Actor &actor, torch::Tensor obs) {
  return frozen_action(actor, obs) + 1;
}

// A method of the module that runs its forward pass, called with the module's
// parameters frozen: no graph either.
struct SamplerImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor s) { return fc(s); }
  torch::Tensor dist(torch::Tensor s) { return fc(s).softmax(-1); }
};
TORCH_MODULE(Sampler);
int64_t frozen_method(Sampler &policy, torch::Tensor obs) {
  for (auto &p : policy->parameters())
    p.requires_grad_(false);
  int64_t a = policy->dist(obs).argmax().item<int64_t>();
  for (auto &p : policy->parameters())
    p.requires_grad_(true);
  return a;
}
int64_t thawed_method(Sampler &policy, torch::Tensor obs) {
  return policy->dist(obs).argmax().item<int64_t>();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: forward pass runs with autograd enabled in a function that never backpropagates
  // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'thawed_method' is inference by what it does
}
