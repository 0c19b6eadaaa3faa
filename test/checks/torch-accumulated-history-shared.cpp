// RUN: %check_torch_tidy %s torch-accumulated-history,torch-history-in-container %t
// RUN: %check_torch_tidy %s torch-accumulated-history,torch-history-in-container %t-depth -config="{CheckOptions: {torch-history-in-container.CallDepth: 2}}"
// Both history checks in one run. They share one history analysis per
// function and each holds its findings until the end of the translation unit
// (CoreCheck::deferUntilCallersKnown), then asks the core's one call graph
// with its own CallDepth: each finding is reported once, under its own check,
// and a function called only under a guard stays silent for both, with equal
// or different CallDepth options.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

namespace F = torch::nn::functional;

// ---- positives -------------------------------------------------------------

// One method updates both members; a loop calls it once per iteration.
struct Trainer {
  Net model;
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};
  torch::Tensor total_ = torch::zeros({1});
  std::vector<torch::Tensor> losses_;

  void train_step(torch::Tensor x, torch::Tensor y) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
    total_ += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'total_' accumulates a tensor that carries autograd history{{.*}} [torch-accumulated-history]
    losses_.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'losses_' keeps a tensor that carries autograd history{{.*}} [torch-history-in-container]
  }
  // CHECK-FIXES: total_ += loss.detach();
  // CHECK-FIXES: losses_.push_back(loss.detach());
  void fit(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    for (const auto &x : xs)
      train_step(x, y);
  }
};

// Both in the loop of one function.
void train(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs,
           torch::Tensor y) {
  torch::Tensor running = torch::zeros({1});
  std::vector<torch::Tensor> outputs;
  for (const auto &x : xs) {
    opt.zero_grad();
    auto out = model(x);
    auto loss = F::mse_loss(out, y);
    loss.backward();
    opt.step();
    running += loss;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'running' accumulates a tensor that carries autograd history{{.*}} [torch-accumulated-history]
    outputs.push_back(out);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'outputs' keeps a tensor that carries autograd history{{.*}} [torch-history-in-container]
  }
}
// CHECK-FIXES: running += loss.detach();
// CHECK-FIXES: outputs.push_back(out.detach());

// ---- negatives -------------------------------------------------------------

// Called only under a guard: no history, no finding from either check.
double evaluate(Net &model, const std::vector<torch::Tensor> &xs) {
  torch::Tensor total = torch::zeros({1});
  std::vector<torch::Tensor> outputs;
  for (const auto &x : xs) {
    auto out = model(x);
    total += out.sum();
    outputs.push_back(out);
  }
  return total.item<double>();
}
double validate(Net &model, const std::vector<torch::Tensor> &xs) {
  torch::NoGradGuard no_grad;
  return evaluate(model, xs);
}
