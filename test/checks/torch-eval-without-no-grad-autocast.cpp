// Autocast changes the dtype of the activations, not whether autograd records
// them: evaluation under an autocast scope still needs a NoGradGuard.
// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
#include <torch/torch.h>
#include <ATen/autocast_mode.h>
#include <libtorch_tidy/amp.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

double evaluate(Net &model, torch::Tensor x) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto out = model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-4]]:8: note: 'evaluate' is evaluation code by its name (option EvalFunctionPattern)
  return out.sum().item<double>();
}
// CHECK-FIXES: double evaluate(Net &model, torch::Tensor x) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);

void train_then_validate(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  model->train();
  model(x).sum().backward();
  opt.step();
  model->eval();
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  auto val = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-4]]:10: note: module switched to evaluation mode here
  at::autocast::set_autocast_enabled(at::kCUDA, false);
}
// CHECK-FIXES: {{^}}  model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  at::autocast::set_autocast_enabled(at::kCUDA, true);{{$}}

// Autocast together with a NoGradGuard: nothing to report.
double evaluate_guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  return model(x).sum().item<double>();
}
