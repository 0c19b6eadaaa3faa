// RUN: %check_torch_tidy %s torch-accumulated-history %t
// History kept across iterations through helpers and data members.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

namespace F = torch::nn::functional;

// ---- positives -------------------------------------------------------------

// A helper returns a loss with history; the caller sums it across iterations.
torch::Tensor batch_loss(Net &model, torch::Tensor x, torch::Tensor y) {
  return F::mse_loss(model(x), y);
}
void helper_into_accumulator(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) {
    auto loss = batch_loss(model, x, y);
    total += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
    // CHECK-MESSAGES: :[[@LINE-5]]:17: note: 'total' is declared outside the loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:17: note: the history comes from this call
  }
}
// CHECK-FIXES: total += loss.detach();

// A member updated by a method that the loop calls: the loss it receives
// carries history in the caller.
struct Meter {
  torch::Tensor running_loss_ = torch::zeros({});
  void update(const torch::Tensor &loss) { this->running_loss_ += loss; }
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: 'running_loss_' accumulates a tensor that carries autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: 'running_loss_' is a data member: it keeps its value from one call to the next
  // CHECK-MESSAGES: :[[@LINE+10]]:5: note: 'update' is called in a loop here, once per iteration
  // CHECK-MESSAGES: :[[@LINE+9]]:18: note: this argument carries the history
  double mean() const { return running_loss_.item<double>(); }
};
// CHECK-FIXES: void update(const torch::Tensor &loss) { this->running_loss_ += loss.detach(); }
void train_with_meter(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  Meter meter;
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    meter.update(loss);
    loss.backward();
    opt.step();
  }
}

// A trainer whose step computes the loss and adds it to a member; the epoch
// method calls the step through another method.
struct Trainer {
  Net model;
  torch::Tensor epoch_loss_;
  void step(torch::Tensor x, torch::Tensor y) {
    auto loss = F::mse_loss(model(x), y);
    epoch_loss_ += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'epoch_loss_' accumulates a tensor that carries autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:17: note: the history comes from this call
    // CHECK-MESSAGES: :[[@LINE-6]]:17: note: 'epoch_loss_' is a data member
    // CHECK-MESSAGES: :[[@LINE+5]]:22: note: 'step' is called here
    // CHECK-MESSAGES: :[[@LINE+9]]:7: note: 'checked_step' is called in a loop here, once per iteration
  }
  // CHECK-FIXES: epoch_loss_ += loss.detach();
  void checked_step(torch::Tensor x, torch::Tensor y) {
    if (x.defined()) step(x, y);
  }
  void run_epoch(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    epoch_loss_ = torch::zeros({});
    for (const auto &x : xs)
      checked_step(x, y);
  }
};

// A helper returns a struct of tensors: the field that carries history is
// known field by field (the struct's other field is a detached number), also
// when the struct is handed to a member that copies the field into a data
// member on every call.
struct StepResult {
  torch::Tensor loss;
  torch::Tensor norm;
};
StepResult update(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model(x), y);
  opt.zero_grad();
  loss.backward();
  opt.step();
  return StepResult{loss, loss.detach().abs()};
}
StepResult update_assigned(Net &model, torch::Tensor x, torch::Tensor y) {
  StepResult r;
  r.loss = F::mse_loss(model(x), y);
  r.norm = torch::zeros({1});
  return r;
}
struct Metrics {
  torch::Tensor losses = torch::zeros({100});
  torch::Tensor norms = torch::zeros({100});
  void set(int64_t step, const StepResult &result) {
    losses.index_put_({step}, result.loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'losses' keeps a copy of a tensor that carries autograd history on every call
    // CHECK-MESSAGES: :[[@LINE-5]]:17: note: 'losses' is a data member
    // CHECK-MESSAGES: :[[@LINE+16]]:5: note: 'set' is called in a loop here, once per iteration
    // CHECK-MESSAGES: :[[@LINE+15]]:23: note: this argument carries the history
    norms.index_put_({step}, result.norm);
  }
};
// CHECK-FIXES: losses.index_put_({step}, result.loss.detach());
void struct_results(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  torch::Tensor total_norm = torch::zeros({});
  Metrics metrics;
  for (int64_t step = 0; step < 100; ++step) {
    StepResult r = update(model, opt, x, y);
    total += r.loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
    // CHECK-MESSAGES: :[[@LINE-3]]:20: note: the history comes from this call
    total_norm += r.norm;
    metrics.set(step, r);
    total += update_assigned(model, x, y).loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total' accumulates a tensor that carries autograd history
    total_norm += update_assigned(model, x, y).norm;
  }
}
// CHECK-FIXES: total += r.loss.detach();

// ---- negatives -------------------------------------------------------------

// The member is back-propagated by another method.
struct Accumulator {
  torch::Tensor total_;
  void add(const torch::Tensor &loss) { total_ += loss; }
  void finish() { total_.backward(); }
};
void accumulate_then_backward(Net &model, torch::Tensor x) {
  Accumulator acc;
  for (int i = 0; i < 4; ++i)
    acc.add(model(x).sum());
  acc.finish();
}

// The member is handed out by a getter: the caller may train through it.
struct LossSum {
  torch::Tensor sum_;
  void add(const torch::Tensor &loss) { sum_ += loss; }
  torch::Tensor get() const { return sum_; }
};
void loss_sum_loop(Net &model, torch::Tensor x) {
  LossSum s;
  for (int i = 0; i < 4; ++i)
    s.add(model(x).sum());
}

// A meter of its own for each look-alike below, so that one firing cannot
// hide another.
template <int N> struct QuietMeter {
  torch::Tensor total_ = torch::zeros({});
  void update(const torch::Tensor &loss) { total_ += loss; }
};

// The argument is detached in the caller.
void meter_detached(Net &model, torch::Tensor x) {
  QuietMeter<1> meter;
  for (int i = 0; i < 4; ++i)
    meter.update(model(x).sum().detach());
}

// The object lives in the iteration: nothing outlives it.
void meter_per_iteration(Net &model, torch::Tensor x) {
  for (int i = 0; i < 4; ++i) {
    QuietMeter<2> meter;
    meter.update(model(x).sum());
  }
}

// Every call runs under a guard.
void meter_guarded(Net &model, torch::Tensor x) {
  QuietMeter<3> meter;
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 4; ++i)
    meter.update(model(x).sum());
}

// Not called from a loop.
void meter_once(Net &model, torch::Tensor x) {
  QuietMeter<4> meter;
  meter.update(model(x).sum());
}

// Called from a lambda in the loop: where the lambda runs is not followed.
void meter_in_lambda(Net &model, torch::Tensor x) {
  QuietMeter<5> meter;
  for (int i = 0; i < 4; ++i) {
    auto record = [&] { meter.update(model(x).sum()); };
    record();
  }
}

// A struct of tensors whose fields carry no history: made under a guard, or
// detached by the helper.
StepResult evaluate(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::NoGradGuard no_grad;
  auto out = model(x);
  return StepResult{F::mse_loss(out, y), out.abs().sum()};
}
StepResult detached_result(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model(x), y);
  return {loss.detach(), loss.detach()};
}
void struct_results_without_history(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  Metrics metrics;
  for (int64_t step = 0; step < 100; ++step) {
    StepResult r = evaluate(model, x, y);
    total += r.loss;
    total += detached_result(model, x, y).loss;
    metrics.set(step, detached_result(model, x, y));
  }
}

