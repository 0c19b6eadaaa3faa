// RUN: %check_torch_tidy %s torch-accumulated-history %t
#include <torch/torch.h>

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
  torch::Tensor total_loss = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    auto loss = F::mse_loss(model(x), y);
    total_loss += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total_loss' accumulates a tensor that carries autograd history: the graph of every iteration stays alive as long as 'total_loss' does; accumulate a detached value [torch-accumulated-history]
  }
}
// CHECK-FIXES: {{^}}    total_loss += loss.detach();{{$}}

void range_for_over_loader(Net &model, Loader &loader) {
  torch::Tensor running = torch::zeros({});
  for (auto &batch : loader) {
    auto data = batch[0].data, target = batch[0].target;
    running = running + F::cross_entropy(model->forward(data), target);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'running' accumulates a tensor that carries autograd history
  }
}
// CHECK-FIXES: {{^}}    running = running + F::cross_entropy(model->forward(data), target).detach();{{$}}

void while_loop(Net &model, torch::Tensor x) {
  torch::Tensor sum = torch::zeros({});
  int i = 0;
  while (i++ < 10)
    sum = model(x).sum() + sum;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sum' accumulates a tensor that carries autograd history
}
// CHECK-FIXES: {{^}}    sum = model(x).sum().detach() + sum;{{$}}

void do_loop(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor err = torch::zeros({});
  int i = 0;
  do {
    auto out = model(x);
    err.add_(out - y);
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'err' accumulates a tensor that carries autograd history
    err -= out.mean() * 2;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'err' accumulates a tensor that carries autograd history
  } while (++i < 10);
}
// CHECK-FIXES: {{^}}    err.add_((out - y).detach());{{$}}
// CHECK-FIXES: {{^}}    err -= (out.mean() * 2).detach();{{$}}

// A user loss function and a wrapper around the forward pass carry history.
torch::Tensor loss_function(torch::Tensor output, torch::Tensor target) {
  return (output - target).pow(2).mean();
}
torch::Tensor predict_all(Net &model, torch::Tensor x) { return model->forward(x); }

struct Trainer {
  Net model;
  torch::optim::SGD *optimizer;
  torch::Tensor epoch_loss;
  torch::Tensor compute_loss(torch::Tensor x, torch::Tensor y) { return F::nll_loss(model(x), y); }

  void evaluate(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    for (const auto &x : xs)
      epoch_loss += loss_function(model(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'epoch_loss' accumulates a tensor that carries autograd history
    static torch::Tensor seen = torch::zeros({});
    for (const auto &x : xs)
      seen += compute_loss(x, y);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'seen' accumulates a tensor that carries autograd history
    torch::Tensor preds = torch::zeros({});
    for (const auto &x : xs)
      preds += predict_all(model, x);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'preds' accumulates a tensor that carries autograd history
  }
};
// CHECK-FIXES: {{^}}      epoch_loss += loss_function(model(x), y).detach();{{$}}
// CHECK-FIXES: {{^}}      seen += compute_loss(x, y).detach();{{$}}
// CHECK-FIXES: {{^}}      preds += predict_all(model, x).detach();{{$}}

void in_lambda(Net &model, std::vector<torch::Tensor> xs) {
  torch::Tensor total = torch::zeros({});
  auto run = [&]() {
    for (auto &x : xs) {
      auto loss = model(x).mean();
      total += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'total' accumulates a tensor that carries autograd history
    }
  };
  run();
}
// CHECK-FIXES: {{^}}      total += loss.detach();{{$}}

torch::Tensor global_total;
void global_accumulator(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i)
    global_total += torch::relu(model(x)).sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'global_total' accumulates
}
// CHECK-FIXES: {{^}}    global_total += torch::relu(model(x)).sum().detach();{{$}}

#define ACCUMULATE(acc, v) acc += v
void in_macro(Net &model, torch::Tensor x) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 3; ++i)
    ACCUMULATE(total, model(x).sum());
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'total' accumulates
}
// CHECK-FIXES: {{^}}    ACCUMULATE(total, model(x).sum());{{$}}

// The accumulator lives in the epoch loop; the batch loop adds to it.
void per_epoch_total(Net &model, torch::optim::SGD &opt, Loader &loader) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor epoch_loss = torch::zeros({});
    for (auto &batch : loader) {
      auto loss = F::nll_loss(model->forward(batch[0].data), batch[0].target);
      opt.zero_grad();
      loss.backward();
      opt.step();
      epoch_loss += loss;
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'epoch_loss' accumulates a tensor that carries autograd history
    }
    (void)epoch_loss.item<float>();
  }
}
// CHECK-FIXES: {{^}}      epoch_loss += loss.detach();{{$}}

// Votes of an ensemble.
torch::Tensor ensemble_vote(std::vector<Net> &members, torch::Tensor x) {
  auto votes = torch::zeros({8, 10});
  for (auto &member : members)
    votes += torch::softmax(member(x), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'votes' accumulates a tensor that carries autograd history
  return votes.argmax(1);
}
// CHECK-FIXES: {{^}}    votes += torch::softmax(member(x), 1).detach();{{$}}

// Started from the first value: no fix-it (the other branch stores the loss).
void started_from_first(Net &model, std::vector<torch::Tensor> xs) {
  torch::Tensor total;
  for (auto &x : xs) {
    auto loss = model(x).mean();
    total = total.defined() ? total + loss : loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
  }
  (void)total.item<float>();
}
// CHECK-FIXES: {{^}}    total = total.defined() ? total + loss : loss;{{$}}

// Made in the outer loop the total outlives, added in an inner one: a new
// graph per outer iteration.
void graph_of_the_outer_loop(Net &model, torch::Tensor x, int epochs) {
  torch::Tensor total = torch::zeros({1});
  for (int e = 0; e < epochs; ++e) {
    auto out = model(x).sum();
    for (int k = 0; k < 2; ++k)
      total += out;
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'total' accumulates a tensor that carries autograd history
  }
  (void)total.item<float>();
}
// CHECK-FIXES: {{^}}      total += out.detach();{{$}}

// Made before the loop, but reassigned in it: a new graph each iteration.
void state_reassigned(Net &model, torch::Tensor x, int steps) {
  torch::Tensor total = torch::zeros({1});
  auto h = model(x);
  for (int s = 0; s < steps; ++s) {
    total += h;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
    h = model(h);
  }
  (void)total.item<float>();
}
// CHECK-FIXES: {{^}}    total += h.detach();{{$}}

// ---- negatives -------------------------------------------------------------

// A layer-by-layer scheduler's residual layer: it sums the stored outputs of
// earlier layers (made before the loop, not changed in it) in a loop over
// its inputs; the sum is the layer's forward computation, each iteration adds
// a graph that the layers already hold.
struct Layer {
  torch::Tensor output;
  std::vector<int> from;
};
struct LayerNet {
  std::vector<Layer> layers;
};
void residual_layer(LayerNet *net, Net &model, torch::Tensor x, int k) {
  torch::Tensor out;
  if (k == 0) {
    out = model(x);
  } else {
    out = net->layers[k + net->layers[k].from[0]].output;
    for (size_t i = 1; i < net->layers[k].from.size(); ++i)
      out += net->layers[k + net->layers[k].from[i]].output;
  }
  net->layers[k].output = out;
}

void detached_or_item(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  double sum = 0;
  torch::Tensor correct = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    auto out = model(x);
    auto loss = F::mse_loss(out, y);
    total += loss.detach();
    sum += loss.item<double>();
    total += loss.item<float>();
    total = (total + loss).detach();
    correct += out.argmax(1).eq(y).sum();
    correct += (out.argmax(1) == y).sum();
    correct += out.gt(y).to(torch::kLong).sum();
    auto d = loss.detach();
    total += d;
  }
}

void guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i)
    total += model(x).sum();
}

void guarded_in_loop(Net &model, torch::Tensor x) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    auto loss = model(x).sum();
    {
      torch::NoGradGuard no_grad;
      total += loss;
    }
  }
}

void backward_later(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> xs) {
  torch::Tensor loss = torch::zeros({});
  for (auto &x : xs)
    loss += model(x).mean(); // per-task losses summed on purpose
  auto mean = loss / 3;
  opt.zero_grad();
  mean.backward();
  opt.step();
}

void gradient_accumulation(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> xs) {
  torch::Tensor acc = torch::zeros({});
  int step = 0;
  for (auto &x : xs) {
    acc = acc + model(x).mean();
    if (++step % 4 == 0) {
      torch::autograd::backward({acc});
      opt.step();
      acc = torch::zeros({});
    }
  }
}

torch::Tensor returned_total(Net &model, std::vector<torch::Tensor> xs) {
  torch::Tensor total = torch::zeros({});
  for (auto &x : xs)
    total += model(x).mean(); // the caller may train through it
  return total;
}

struct ResidualImpl : torch::nn::Module {
  std::vector<torch::nn::Linear> blocks;
  torch::Tensor forward(torch::Tensor x) {
    for (auto &block : blocks)
      x = x + block(x); // builds the graph on purpose
    return x;
  }
};

void declared_in_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    torch::Tensor acc = torch::zeros({});
    acc += model(x).sum();
  }
}

void not_in_loop(Net &model, torch::Tensor x) {
  torch::Tensor acc = torch::zeros({});
  acc += model(x).sum();
}

void no_history(torch::Tensor x) {
  torch::Tensor acc = torch::zeros({});
  for (int i = 0; i < 10; ++i)
    acc += x * 2;
}

struct MemberBackward {
  Net model;
  torch::Tensor pending = torch::zeros({});
  void observe(std::vector<torch::Tensor> xs) {
    for (auto &x : xs)
      pending += model(x).mean();
  }
  void update() {
    pending.backward();
    pending = torch::zeros({});
  }
};

torch::Tensor accuracy(torch::Tensor out, torch::Tensor y) { return out.argmax(1).eq(y).sum(); }
void user_function_without_history(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor correct = torch::zeros({});
  for (int i = 0; i < 10; ++i)
    correct += accuracy(model(x), y);
}

// The FAQ's case: backward() on each loss does not make the running total safe.
void train_epoch(Net &model, torch::optim::SGD &opt, Loader &loader) {
  torch::Tensor total_loss = torch::zeros({});
  for (auto &batch : loader) {
    auto loss = F::nll_loss(model->forward(batch[0].data), batch[0].target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    total_loss += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total_loss' accumulates a tensor that carries autograd history
  }
}
// CHECK-FIXES: {{^}}    total_loss += loss.detach();{{$}}

// Every call of this helper is under a guard: no history.
double validation_loss(Net &model, std::vector<torch::Tensor> xs) {
  torch::Tensor total = torch::zeros({});
  for (auto &x : xs)
    total += model(x).mean();
  return total.item<double>();
}
void run_validation(Net &model, std::vector<torch::Tensor> xs) {
  torch::NoGradGuard no_grad;
  validation_loss(model, xs);
}

// A lambda whose returned tensor carries history makes its calls carry it too.
void lambda_wrapper(Net &model, std::vector<torch::Tensor> xs) {
  auto compute = [&](const torch::Tensor &x) { return model->forward(x).abs().mean(); };
  auto metric = [](const torch::Tensor &x) { return x.argmax(1).sum(); };
  torch::Tensor total = torch::zeros({}), hits = torch::zeros({});
  for (auto &x : xs) {
    total += compute(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
    hits += metric(model(x));
  }
}
// CHECK-FIXES: {{^}}    total += compute(x).detach();{{$}}

// Filled for the caller, who may train through it.
void add_penalties(Net &model, std::vector<torch::Tensor> xs, torch::Tensor &penalty) {
  for (auto &x : xs)
    penalty += model(x).pow(2).mean();
}

// An ensemble averaged for a loss that is back-propagated.
void ensemble_trained(std::vector<Net> &members, torch::Tensor x, torch::Tensor y) {
  auto votes = torch::zeros({8, 10});
  for (auto &member : members)
    votes += torch::softmax(member(x), 1);
  F::nll_loss(votes.log(), y).backward();
}
