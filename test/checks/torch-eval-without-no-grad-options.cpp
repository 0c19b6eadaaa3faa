// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t -config="{CheckOptions: {torch-eval-without-no-grad.GuardType: InferenceMode, torch-eval-without-no-grad.EvalFunctionPattern: '^(score|bench)$'}}"
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

float score_batch(Net &model, torch::Tensor x) {
  return model(x).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'c10::InferenceMode' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'score_batch' is evaluation code by its name
}
// CHECK-FIXES: float score_batch(Net &model, torch::Tensor x) {
// CHECK-FIXES-NEXT: c10::InferenceMode guard;
// CHECK-FIXES-NEXT: return model(x).sum().item<float>();

// The default names are not evaluation code under this pattern.
float evaluate(Net &model, torch::Tensor x) { return model(x).sum().item<float>(); }

// A void evaluation function called from training code is still flagged: no
// tensor flows back into the training.
void benchEpoch(Net &model, torch::Tensor x) {
  model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'benchEpoch' is evaluation code by its name
}
// CHECK-FIXES: void benchEpoch(Net &model, torch::Tensor x) {
// CHECK-FIXES-NEXT: c10::InferenceMode guard;
void train(Net &model, torch::Tensor x) {
  model->forward(x).sum().backward();
  benchEpoch(model, x);
}
