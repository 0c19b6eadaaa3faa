// RUN: %check_torch_tidy %s torch-accumulated-history %t
// Indexed assignment into a tensor that outlives the loop (`losses[epoch] = loss`)
// copies the value into the tensor's storage through an autograd operation: the
// tensor's history then holds every iteration's graph, as a sum would.
#include <torch/torch.h>
#include <map>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

namespace F = torch::nn::functional;

// ---- positives ----------------------------------------------------------------

void per_epoch_losses(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor losses = torch::zeros({10});
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    losses[epoch] = loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'losses' keeps a copy of a tensor that carries autograd history: the copy puts 'losses' in the graph of every iteration, which stays alive as long as 'losses' does; store a detached value [torch-accumulated-history]
  }
}
// CHECK-FIXES: {{^}}    losses[epoch] = loss.detach();{{$}}

void through_a_view(Net &model, torch::Tensor x) {
  torch::Tensor outputs = torch::zeros({8, 2});
  for (int i = 0; i < 8; ++i)
    outputs.select(0, i) = model(x).sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'outputs' keeps a copy of a tensor that carries autograd history
}
// CHECK-FIXES: {{^}}    outputs.select(0, i) = model(x).sum().detach();{{$}}

// A train/test loop templated on the data loader: its instantiation is analysed
// and the finding in the template is reported once.
template <typename DataLoader>
void test_loop(Net &model, DataLoader &loader, torch::Tensor scores) {
  int i = 0;
  for (auto &batch : loader) {
    scores[i++] = model->forward(batch[0].data).mean();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'scores' keeps a copy of a tensor that carries autograd history
  }
}
// CHECK-FIXES: {{^}}    scores[i++] = model->forward(batch[0].data).mean().detach();{{$}}

using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                torch::data::samplers::RandomSampler>;
using Sequential = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                    torch::data::samplers::SequentialSampler>;
void run_tests(Net &model, Loader &a, Sequential &b, torch::Tensor scores) {
  test_loop(model, a, scores);
  test_loop(model, b, scores);
}

// index_put_ with a tensor writes the storage as an indexed assignment does;
// a tensor inside a local object is named as written.
struct Metrics {
  torch::Tensor loss = torch::zeros({10});
  torch::Tensor norm = torch::zeros({10});
  void set(int64_t e, const torch::Tensor &l, const torch::Tensor &n) {
    loss.index_put_({e}, l.reshape({1}));
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'loss' keeps a copy of a tensor that carries autograd history on every call: the copy puts 'loss' in the graph of every iteration, which stays alive as long as 'loss' does; store a detached value [torch-accumulated-history]
    // CHECK-MESSAGES: :[[@LINE-5]]:17: note: 'loss' is a data member: it keeps its value from one call to the next
    // CHECK-MESSAGES: :[[@LINE+20]]:5: note: 'set' is called in a loop here, once per iteration
    // CHECK-MESSAGES: :[[@LINE+19]]:24: note: this argument carries the history
    norm.index_put_({e}, n);
  }
};
// CHECK-FIXES: {{^}}    loss.index_put_({e}, l.reshape({1}).detach());{{$}}
// CHECK-FIXES: {{^}}    norm.index_put_({e}, n);{{$}}

void put_losses(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor losses = torch::zeros({10});
  Metrics metrics;
  for (int64_t epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    losses.index_put_({epoch}, loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'losses' keeps a copy of a tensor that carries autograd history
    metrics.loss[epoch] = loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'metrics.loss' keeps a copy of a tensor that carries autograd history: the copy puts 'metrics.loss' in the graph
    metrics.set(epoch, loss, loss.detach());
  }
}
// CHECK-FIXES: {{^}}    losses.index_put_({epoch}, loss.detach());{{$}}
// CHECK-FIXES: {{^}}    metrics.loss[epoch] = loss.detach();{{$}}

// ---- look-alikes ----------------------------------------------------------------

void detached_or_scalar(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor losses = torch::zeros({10});
  torch::Tensor items = torch::zeros({10});
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto loss = F::mse_loss(model(x), y);
    losses[epoch] = loss.detach();
    items[epoch] = loss.item<double>();
  }
}

void declared_in_the_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 4; ++i) {
    torch::Tensor k = torch::zeros({2});
    k[0] = model(x).sum();
    k.sum().backward();
  }
}

void under_a_guard(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Tensor outputs = torch::zeros({8});
  for (int i = 0; i < 8; ++i)
    outputs[i] = model(x).sum();
}

// Back-propagated after the loop: the graph is wanted.
void wanted(Net &model, torch::Tensor x) {
  torch::Tensor parts = torch::zeros({4});
  for (int i = 0; i < 4; ++i)
    parts[i] = model(x).sum();
  parts.sum().backward();
}

// Rebinding the whole variable is not a copy into it.
void rebinding(Net &model, torch::Tensor x) {
  torch::Tensor last;
  for (int i = 0; i < 4; ++i)
    last = model(x).sum().detach();
}

// A tensor without history written by index.
void no_history(torch::Tensor x) {
  torch::Tensor counts = torch::zeros({4});
  for (int i = 0; i < 4; ++i)
    counts[i] = x.sum().detach();
}

// A member written by index whose class back-propagates it (a REINFORCE
// episode: log-probabilities stored per step, one backward at the end); a
// number or a detached value put; a tensor handed in by reference (the caller
// owns it).
struct Episode {
  torch::Tensor log_probs = torch::zeros({100});
  void record(int64_t t, const torch::Tensor &lp) { log_probs.index_put_({t}, lp); }
  void finish(const torch::Tensor &returns) { (-(log_probs * returns).sum()).backward(); }
};
void run_episode(Net &model, torch::Tensor x, torch::Tensor returns, torch::Tensor &out) {
  Episode episode;
  torch::Tensor counts = torch::zeros({100});
  for (int64_t t = 0; t < 100; ++t) {
    auto lp = model(x).sum();
    episode.record(t, lp);
    counts.index_put_({t}, 1);
    counts.index_put_({t}, lp.detach());
    out.index_put_({t}, lp);
  }
  episode.finish(returns);
}

// A tensor held in a container's slot is replaced, not written into: the
// container's business (torch-history-in-container), not an indexed copy.
void map_slot(Net &model, torch::Tensor x) {
  std::map<std::string, torch::Tensor> loss_map;
  for (int i = 0; i < 4; ++i)
    loss_map["loss"] = model(x).sum();
}
