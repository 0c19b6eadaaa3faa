// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
// RUN: %check_torch_tidy --no-fix -check-suffix=DEPTH1 %s torch-eval-without-no-grad %t -config="{CheckOptions: {torch-eval-without-no-grad.CallDepth: 1}}"
// Evaluation through helpers: the forward pass in one function, the guard (or
// its absence) at the call sites, transitively.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// ---- a validate() helper called from the epoch loop with no guard ----------

double validate(Net &model, const std::vector<torch::Tensor> &loader) {
  double total = 0;
  for (const auto &x : loader)
    total += model->forward(x).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'validate' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE+17]]:20: note: 'validate' is called here with autograd enabled
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-4]]:21: warning: forward pass in evaluation code
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-8]]:8: note: 'validate' is evaluation code by its name
  // CHECK-MESSAGES-DEPTH1: :[[@LINE+14]]:20: note: 'validate' is called here with autograd enabled
  return total;
}
// CHECK-FIXES: double validate(Net &model, const std::vector<torch::Tensor> &loader) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: double total = 0;

void fit(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (const auto &x : data) {
      opt.zero_grad();
      model->forward(x).sum().backward();
      opt.step();
    }
    double score = validate(model, data);
  }
}

// ---- a neutral helper that runs the forward, called from evaluation code ---

torch::Tensor run_model(Net &model, torch::Tensor x) { return model->forward(x); }

// The helper is also called from training code (its graph is wanted there):
// the finding is at the evaluation call site, with the guard there.
double evaluate_accuracy(Net &model, const std::vector<torch::Tensor> &loader) {
  double correct = 0;
  for (const auto &x : loader)
    correct += run_model(model, x).argmax(1).sum().item<double>();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'evaluate_accuracy' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-10]]:70: note: 'run_model' runs this forward pass
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-4]]:16: warning: forward pass in evaluation code
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-8]]:8: note: 'evaluate_accuracy' is evaluation code
  // CHECK-MESSAGES-DEPTH1: :[[@LINE-13]]:70: note: 'run_model' runs this forward pass
  return correct;
}
// CHECK-FIXES: double evaluate_accuracy(Net &model, const std::vector<torch::Tensor> &loader) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: double correct = 0;

void train_with_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  run_model(model, x).sum().backward();
  opt.step();
}

// Two levels of helpers after eval(): reported at the call in this function.
torch::Tensor inner_forward(Net &model, torch::Tensor x) { return model(x); }
torch::Tensor outer_forward(Net &model, torch::Tensor x) { return inner_forward(model, x) * 2; }
void report_metrics(Net &model, torch::Tensor x) {
  model->eval();
  auto y = outer_forward(model, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: module switched to evaluation mode here
  // CHECK-MESSAGES: :[[@LINE-7]]:67: note: 'outer_forward' runs this forward pass
  auto s = y.sum();
}
// CHECK-FIXES: model->eval();
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: auto y = outer_forward(model, x);

// ---- negatives: every chain of callers holds a guard -----------------------

double test_epoch(Net &model, const std::vector<torch::Tensor> &loader) {
  double total = 0;
  for (const auto &x : loader)
    total += model->forward(x).sum().item<double>();
  return total;
}
double run_tests(Net &model, const std::vector<torch::Tensor> &loader) {
  return test_epoch(model, loader);
}
void epochs_guarded(Net &model, const std::vector<torch::Tensor> &loader) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    torch::NoGradGuard no_grad;
    run_tests(model, loader); // the guard two levels up covers test_epoch
  }
}

// A guard held by a helper that takes the evaluation as a lambda.
template <typename F> void without_grad(F &&f) {
  torch::NoGradGuard guard;
  f();
}
double validation_loss(Net &model, torch::Tensor x) { return model(x).sum().item<double>(); }
void guarded_by_lambda_helper(Net &model, torch::Tensor x) {
  without_grad([&] { validation_loss(model, x); });
}

// Recursion terminates and adds no unguarded chain.
double eval_recursive(Net &model, torch::Tensor x, int n) {
  if (n == 0)
    return model(x).sum().item<double>();
  return eval_recursive(model, x, n - 1);
}
void recursion_guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  eval_recursive(model, x, 3);
}

// A helper used only for training from evaluation-looking code that trains.
torch::Tensor compute_loss(Net &model, torch::Tensor x) { return model(x).sum(); }
void validate_and_finetune(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  model->eval();
  auto loss = compute_loss(model, x);
  loss.backward(); // the graph is used
  opt.step();
}

// A helper that trains makes its caller training code.
void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  model(x).sum().backward();
  opt.step();
}
void evaluate_then_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  model(x);
  train_step(model, opt, x);
}

// Virtual calls are not followed: which override runs is unknown.
struct Runner {
  virtual ~Runner() = default;
  virtual torch::Tensor run(torch::Tensor x) = 0;
};
struct ModelRunner : Runner {
  Net model;
  torch::Tensor run(torch::Tensor x) override { return model(x); }
};
double evaluate_runner(Runner &r, torch::Tensor x) { return r.run(x).sum().item<double>(); }

// Calls through std::function are not followed.
double evaluate_callback(const std::function<torch::Tensor(torch::Tensor)> &f, torch::Tensor x) {
  return f(x).sum().item<double>();
}
