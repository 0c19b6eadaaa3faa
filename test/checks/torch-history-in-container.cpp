// RUN: %check_torch_tidy %s torch-history-in-container %t
#include <torch/torch.h>
#include <deque>
#include <map>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

namespace F = torch::nn::functional;
using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                torch::data::samplers::RandomSampler>;

// ---- positives: every kind of loop ----------------------------------------

void for_loop(Net &model, torch::Tensor x, torch::Tensor y) {
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < 10; ++i) {
    auto loss = F::mse_loss(model(x), y);
    losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'losses' keeps a tensor that carries autograd history: the graph of every iteration stays alive as long as 'losses' holds it; store a detached tensor [torch-history-in-container]
  }
}
// CHECK-FIXES: {{^}}    losses.push_back(loss.detach());{{$}}

void range_for_over_loader(Net &model, Loader &loader) {
  std::vector<torch::Tensor> outputs;
  for (auto &batch : loader)
    outputs.emplace_back(model->forward(batch[0].data));
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'outputs' keeps a tensor that carries autograd history
}
// CHECK-FIXES: {{^}}    outputs.emplace_back(model->forward(batch[0].data).detach());{{$}}

void while_loop(Net &model, torch::Tensor x) {
  std::deque<torch::Tensor> window;
  int i = 0;
  while (i++ < 10)
    window.push_front(model(x) * 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'window' keeps a tensor that carries autograd history
}
// CHECK-FIXES: {{^}}    window.push_front((model(x) * 2).detach());{{$}}

void do_loop(Net &model, torch::Tensor x) {
  std::map<int, torch::Tensor> by_step;
  std::vector<torch::Tensor> all;
  int i = 0;
  do {
    auto out = model(x);
    by_step[i] = out.softmax(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'by_step' keeps a tensor that carries autograd history
    all.insert(all.end(), out);
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'all' keeps a tensor that carries autograd history
  } while (++i < 10);
}
// CHECK-FIXES: {{^}}    by_step[i] = out.softmax(1).detach();{{$}}
// CHECK-FIXES: {{^}}    all.insert(all.end(), out.detach());{{$}}

torch::Tensor loss_function(torch::Tensor output, torch::Tensor target) {
  return (output - target).abs().mean();
}

struct Trainer {
  Net model;
  std::vector<torch::Tensor> history_;
  void evaluate(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    for (const auto &x : xs)
      history_.push_back(loss_function(model(x), y));
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'history_' keeps a tensor that carries autograd history
  }
};
// CHECK-FIXES: {{^}}      history_.push_back(loss_function(model(x), y).detach());{{$}}

void in_lambda(Net &model, std::vector<torch::Tensor> xs) {
  std::map<std::string, torch::Tensor> last;
  auto run = [&]() {
    int i = 0;
    for (auto &x : xs)
      last[std::to_string(i++)] = model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'last' keeps a tensor that carries autograd history
  };
  run();
}
// CHECK-FIXES: {{^}}      last[std::to_string(i++)] = model(x).detach();{{$}}

// The same slot replaced on every iteration (a constant key or index): one
// graph kept at a time, not one per iteration.
void one_slot(Net &model, std::vector<torch::Tensor> xs) {
  std::map<std::string, torch::Tensor> loss_map;
  std::vector<torch::Tensor> parts(2);
  const int kLast = 1;
  for (auto &x : xs) {
    loss_map["loss"] = model(x);
    parts[0] = model(x);
    parts.at(kLast) = model(x);
  }
}

void tuple_element(torch::nn::LSTM &lstm, torch::Tensor x) {
  std::vector<std::tuple<torch::Tensor, std::tuple<torch::Tensor, torch::Tensor>>> results;
  for (int i = 0; i < 3; ++i)
    results.push_back(lstm(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'results' keeps a tensor that carries autograd history
  // (no fix-it: not a tensor)
}

// A data member filled by a member function: every call adds a graph.
struct Classifier {
  Net model;
  std::vector<torch::Tensor> debug_logits_;
  std::deque<torch::Tensor> recent_;
  torch::Tensor predict(torch::Tensor x) {
    auto logits = model(x);
    debug_logits_.push_back(logits);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'debug_logits_' keeps a tensor that carries autograd history
    recent_.push_back(logits.softmax(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'recent_' keeps a tensor that carries autograd history
    if (recent_.size() > 8)
      recent_.pop_front(); // a ring: still eight graphs
    return logits.argmax(1);
  }
};
// CHECK-FIXES: {{^}}    debug_logits_.push_back(logits.detach());{{$}}
// CHECK-FIXES: {{^}}    recent_.push_back(logits.softmax(1).detach());{{$}}

// A ring of recent outputs in a loop.
void recent_outputs(Net &model, std::vector<torch::Tensor> xs) {
  std::deque<torch::Tensor> recent;
  for (auto &x : xs) {
    recent.emplace_back(model(x));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'recent' keeps a tensor that carries autograd history
    while (recent.size() > 16)
      recent.pop_front();
  }
}
// CHECK-FIXES: {{^}}    recent.emplace_back(model(x).detach());{{$}}

// Chunked predictions kept across the chunks.
torch::Tensor predict_in_chunks(Net &model, torch::Tensor inputs) {
  std::vector<torch::Tensor> predictions;
  for (int64_t i = 0; i < inputs.size(0); ++i)
    predictions.push_back(model(inputs.select(0, i)).softmax(1));
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'predictions' keeps a tensor that carries autograd history
  return torch::cat(predictions).argmax(1);
}
// CHECK-FIXES: {{^}}    predictions.push_back(model(inputs.select(0, i)).softmax(1).detach());{{$}}

// The same graph stored on every inner iteration, but made anew on every outer
// iteration, which the container outlives: one graph per epoch.
void graph_of_the_outer_loop(Net &model, torch::Tensor x, int epochs) {
  std::vector<torch::Tensor> kept;
  for (int e = 0; e < epochs; ++e) {
    auto out = model(x);
    for (int k = 0; k < 2; ++k)
      kept.push_back(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'kept' keeps a tensor that carries autograd history
  }
}
// CHECK-FIXES: {{^}}      kept.push_back(out.detach());{{$}}

// Made before the loop, but the variable is reassigned in it: a new graph each time.
void reassigned_in_the_loop(Net &model, torch::Tensor x, int steps) {
  std::vector<torch::Tensor> states;
  auto h = model(x);
  for (int s = 0; s < steps; ++s) {
    states.push_back(h);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'states' keeps a tensor that carries autograd history
    h = model(h);
  }
}
// CHECK-FIXES: {{^}}    states.push_back(h.detach());{{$}}

// ---- negatives -------------------------------------------------------------

// A layer-by-layer scheduler's concat layer: it gathers the stored outputs of
// earlier layers (made before the loop, not changed in it) for torch::cat; each
// graph is held by net->layers already, the vector adds none.
struct Layer {
  torch::Tensor output;
};
struct LayerNet {
  std::vector<Layer> layers;
};
void concat_layer(LayerNet *net, Net &model, torch::Tensor x, int k, const std::vector<int> &from) {
  net->layers[k - 1].output = model(x);
  std::vector<torch::Tensor> cat_input;
  for (size_t i = 0; i < from.size(); ++i)
    cat_input.push_back(net->layers[k + from[i]].output);
  torch::Tensor out = torch::cat(cat_input, 1);
  net->layers[k].output = out;
}

void detached(Net &model, torch::Tensor x) {
  std::vector<torch::Tensor> outs;
  std::vector<double> values;
  for (int i = 0; i < 10; ++i) {
    auto out = model(x);
    outs.push_back(out.detach());
    values.push_back(out.sum().item<double>());
    outs.push_back(out.argmax(1));
  }
}

void guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> outs;
  for (int i = 0; i < 10; ++i)
    outs.push_back(model(x));
}

// REINFORCE: log-probabilities are kept for the policy-gradient loss.
void reinforce(Net &policy, torch::optim::Adam &opt, torch::Tensor state) {
  std::vector<torch::Tensor> log_probs;
  std::vector<float> rewards;
  for (int t = 0; t < 100; ++t) {
    auto logits = policy(state);
    log_probs.push_back(logits.log_softmax(1).select(1, 0));
    rewards.push_back(1.0f);
  }
  auto returns = torch::ones({100});
  auto loss = -(torch::stack(log_probs) * returns).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
}

void cleared_each_iteration(Net &model, std::vector<torch::Tensor> xs) {
  std::vector<torch::Tensor> parts;
  for (int epoch = 0; epoch < 3; ++epoch) {
    parts.clear();
    for (auto &x : xs)
      parts.push_back(model(x));
    auto total = torch::cat(parts).sum().item<float>();
    (void)total;
  }
}

std::vector<torch::Tensor> returned(Net &model, std::vector<torch::Tensor> xs) {
  std::vector<torch::Tensor> outs;
  for (auto &x : xs)
    outs.push_back(model(x)); // the caller may train through them
  return outs;
}

void declared_in_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    std::vector<torch::Tensor> outs;
    outs.push_back(model(x));
  }
}

struct Agent {
  Net policy;
  std::vector<torch::Tensor> saved_log_probs_;
  void rollout(torch::Tensor s) {
    for (int t = 0; t < 10; ++t)
      saved_log_probs_.push_back(policy(s).log_softmax(1));
  }
  void finish_episode(torch::optim::Adam &opt) {
    auto loss = torch::cat(saved_log_probs_).sum();
    loss.backward();
    saved_log_probs_.clear();
  }
};

void no_history(std::vector<torch::Tensor> xs) {
  std::vector<torch::Tensor> doubled;
  for (auto &x : xs)
    doubled.push_back(x * 2);
}

// The FAQ's case: backward() on each loss does not make the kept losses safe.
void train_epoch(Net &model, torch::optim::SGD &opt, Loader &loader) {
  std::vector<torch::Tensor> losses;
  for (auto &batch : loader) {
    auto loss = F::nll_loss(model->forward(batch[0].data), batch[0].target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    losses.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'losses' keeps a tensor that carries autograd history
  }
}
// CHECK-FIXES: {{^}}    losses.push_back(loss.detach());{{$}}

// Every call of this helper is under a guard: no history.
size_t count_predictions(Net &model, std::vector<torch::Tensor> xs) {
  std::vector<torch::Tensor> out;
  for (auto &x : xs)
    out.push_back(model(x));
  return out.size();
}
void predict(Net &model, std::vector<torch::Tensor> xs) {
  torch::NoGradGuard no_grad;
  count_predictions(model, xs);
}

// Filled for the caller, who may train through the contents.
void collect_outputs(Net &model, std::vector<torch::Tensor> xs, std::vector<torch::Tensor> &out) {
  for (auto &x : xs)
    out.push_back(model(x));
}

// Returning the size is not returning the contents.
size_t count_outputs(Net &model, std::vector<torch::Tensor> xs) {
  std::vector<torch::Tensor> out;
  for (auto &x : xs)
    out.push_back(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'out' keeps a tensor that carries autograd history
  return out.size();
}
// CHECK-FIXES: {{^}}    out.push_back(model(x).detach());{{$}}

// Members emptied by another member function, filled once in a constructor,
// or drained in the call.
struct Buffered {
  Net model;
  std::vector<torch::Tensor> pending_;
  std::vector<torch::Tensor> initial_;
  std::deque<torch::Tensor> queue_;
  explicit Buffered(torch::Tensor x) { initial_.push_back(model(x)); }
  void observe(torch::Tensor x) { pending_.push_back(model(x)); }
  void reset() { pending_.clear(); }
  void process(torch::Tensor x) {
    queue_.push_back(model(x));
    while (!queue_.empty())
      queue_.pop_front();
  }
};

// A local filled once, without a loop.
void once(Net &model, torch::Tensor x) {
  std::vector<torch::Tensor> outs;
  outs.push_back(model(x));
}

// A module that keeps its activations for a feature loss computed elsewhere.
struct FeatureNetImpl : torch::nn::Module {
  std::vector<torch::Tensor> features_;
  Net body;
  torch::Tensor forward(torch::Tensor x) {
    auto h = body(x);
    features_.push_back(h);
    return h;
  }
};
