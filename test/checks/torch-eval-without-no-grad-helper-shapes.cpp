// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
// What a helper does, for evaluation code that calls it, is the helper's
// function summary (checks/utils/Summaries.h): lambdas the helper runs
// itself, cycles of calls, and template instantiations as the summaries see
// them.
#include <torch/torch.h>
#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// The helper's forward pass runs in a lambda it calls.
torch::Tensor via_lambda(Net &model, torch::Tensor x) {
  auto f = [&] { return model(x); };
  return f();
}
double evaluate_lambda(Net &model, torch::Tensor x) { return via_lambda(model, x).sum().item<double>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:62: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES: :[[@LINE-2]]:8: note: 'evaluate_lambda' is evaluation code by its name
// CHECK-MESSAGES: :[[@LINE-6]]:25: note: 'via_lambda' runs this forward pass
// CHECK-FIXES: double evaluate_lambda(Net &model, torch::Tensor x) { torch::NoGradGuard no_grad; return via_lambda(model, x).sum().item<double>(); }

// ... in a lambda handed to std::for_each.
void run_each(Net &model, std::vector<torch::Tensor> &xs) {
  std::for_each(xs.begin(), xs.end(), [&](torch::Tensor &x) { x = model(x); });
}
void evaluate_each(Net &model, std::vector<torch::Tensor> &xs) { run_each(model, xs); }
// CHECK-MESSAGES: :[[@LINE-1]]:66: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES: :[[@LINE-2]]:6: note: 'evaluate_each' is evaluation code by its name
// CHECK-MESSAGES: :[[@LINE-5]]:67: note: 'run_each' runs this forward pass
// CHECK-FIXES: void evaluate_each(Net &model, std::vector<torch::Tensor> &xs) { torch::NoGradGuard no_grad; run_each(model, xs); }

// Look-alike: the helper hands the lambda to a thread (autograd is
// thread-local there: torch-eval-without-no-grad-threads.cpp).
void run_in_thread(Net &model, torch::Tensor x) {
  std::thread t([&] { model(x); });
  t.join();
}
void evaluate_thread(Net &model, torch::Tensor x) { run_in_thread(model, x); }

// Look-alike: the helper only makes the lambda; the caller decides where it runs.
std::function<torch::Tensor()> make_forward(Net &model, torch::Tensor x) {
  return [&model, x] { return model(x); };
}
void evaluate_later(Net &model, torch::Tensor x) { auto f = make_forward(model, x); (void)f; }

// Look-alike: the helper's backward pass runs in the closure LBFGS calls: the
// helper trains, so its caller is training code (after eval(), too).
torch::Tensor closure_step(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  opt.step([&] {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    return loss;
  });
  return x;
}
double report_closure(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  model->eval();
  auto y = model(x);
  closure_step(model, opt, x);
  return y.sum().item<double>();
}

// Mutual recursion: odd() reaches the forward pass through even().
torch::Tensor even_n(Net &model, torch::Tensor x, int n);
torch::Tensor odd_n(Net &model, torch::Tensor x, int n) { return n ? even_n(model, x, n - 1) : x; }
torch::Tensor even_n(Net &model, torch::Tensor x, int n) { return n ? odd_n(model, x, n - 1) : model(x); }
double evaluate_cycle(Net &model, torch::Tensor x) { return odd_n(model, x, 3).sum().item<double>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:61: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES: :[[@LINE-2]]:8: note: 'evaluate_cycle' is evaluation code by its name
// CHECK-MESSAGES: :[[@LINE-4]]:96: note: 'odd_n' runs this forward pass
// CHECK-FIXES: double evaluate_cycle(Net &model, torch::Tensor x) { torch::NoGradGuard no_grad; return odd_n(model, x, 3).sum().item<double>(); }

// Look-alike: the cycle's forward pass is guarded inside it.
torch::Tensor even_g(Net &model, torch::Tensor x, int n);
torch::Tensor odd_g(Net &model, torch::Tensor x, int n) {
  torch::NoGradGuard no_grad;
  return n ? even_g(model, x, n - 1) : x;
}
torch::Tensor even_g(Net &model, torch::Tensor x, int n) { return n ? odd_g(model, x, n - 1) : x; }
double evaluate_guarded_cycle(Net &model, torch::Tensor x) { return odd_g(model, x, 3).sum().item<double>(); }

// Instantiations of one template share their pattern's summary: the
// pattern's body runs the forward pass, whichever instantiation is called.
template <int N> torch::Tensor deep(Net &model, torch::Tensor x) {
  if constexpr (N == 0)
    return model(x);
  else
    return deep<N - 1>(model, x) + x;
}
double validate_deep(Net &model, torch::Tensor x) { return deep<5>(model, x).sum().item<double>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:60: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES: :[[@LINE-2]]:8: note: 'validate_deep' is evaluation code by its name
// CHECK-MESSAGES: :[[@LINE-7]]:12: note: 'deep' runs this forward pass
// CHECK-FIXES: double validate_deep(Net &model, torch::Tensor x) { torch::NoGradGuard no_grad; return deep<5>(model, x).sum().item<double>(); }

