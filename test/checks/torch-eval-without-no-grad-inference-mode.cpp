// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t -config="{CheckOptions: {torch-eval-without-no-grad.SuggestInferenceMode: true}}"
// Option SuggestInferenceMode: c10::InferenceMode where no tensor the function
// computes can reach autograd after it; torch::NoGradGuard wherever that is
// not certain.
#include <torch/torch.h>
#include <cstdio>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// ---- InferenceMode: the results end as host values -------------------------

float evaluate(Net &model, torch::Tensor x) {
  return model->forward(x).argmax(1).sum().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'c10::InferenceMode' while evaluating: no tensor it computes leaves the function, so inference mode, which also skips view and version tracking, is safe here [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'evaluate' is evaluation code by its name
}
// CHECK-FIXES: float evaluate(Net &model, torch::Tensor x) {
// CHECK-FIXES-NEXT: c10::InferenceMode guard;
// CHECK-FIXES-NEXT: return model->forward(x).argmax(1).sum().item<float>();

void predict(Net &model, const std::vector<torch::Tensor> &batches) {
  std::vector<int64_t> labels;
  for (const auto &x : batches) {
    auto out = model(x).cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass in evaluation code runs with autograd enabled: {{.*}}hold a 'c10::InferenceMode' while evaluating: no tensor it computes leaves the function
    // CHECK-MESSAGES: :[[@LINE-5]]:6: note: 'predict' is evaluation code by its name
    labels.push_back(out.argmax().item<int64_t>());
    std::printf("%f\n", out.sum().item<float>());
  }
}
// CHECK-FIXES: void predict(Net &model, const std::vector<torch::Tensor> &batches) {
// CHECK-FIXES-NEXT: c10::InferenceMode guard;

// After eval(): the guard goes after it.
int serve_batch(Net &model, torch::Tensor x) {
  model->eval();
  torch::Tensor y = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass in evaluation code runs with autograd enabled: {{.*}}'c10::InferenceMode' while evaluating: no tensor
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: module switched to evaluation mode here
  return static_cast<int>(y.argmax().item<int64_t>());
}
// CHECK-FIXES: model->eval();
// CHECK-FIXES-NEXT: c10::InferenceMode guard;
// CHECK-FIXES-NEXT: torch::Tensor y = model(x);

// ---- NoGradGuard: a tensor may outlive the function ------------------------

// Returned (the caller may train through it).
torch::Tensor infer(Net &model, torch::Tensor x) { return model(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:59: warning: forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
// CHECK-MESSAGES: :[[@LINE-2]]:15: note: 'infer' is evaluation code
// CHECK-FIXES: torch::Tensor infer(Net &model, torch::Tensor x) { torch::NoGradGuard no_grad; return model(x); }

// Written through an out parameter.
void validate(Net &model, torch::Tensor x, torch::Tensor &out) {
  out = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'validate' is evaluation code
}
// CHECK-FIXES: torch::NoGradGuard no_grad;

struct Server {
  Net model;
  std::vector<torch::Tensor> cache;
  torch::Tensor last;
  // Kept in a member container.
  void predict(torch::Tensor x) {
    cache.push_back(model(x));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'predict' is evaluation code
  }
  // Assigned to a member.
  void test(torch::Tensor x) {
    auto y = model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:8: note: 'test' is evaluation code
    last = y;
  }
};

// Handed to a function of the user's (it may keep it).
void record(const torch::Tensor &t);
void inference(Net &model, torch::Tensor x) {
  auto y = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'inference' is evaluation code
  record(y);
}

// Kept in a static.
float evaluation(Net &model, torch::Tensor x) {
  static torch::Tensor previous;
  previous = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: 'evaluation' is evaluation code
  return previous.sum().item<float>();
}

// Captured by a lambda (which may outlive the call).
void testing(Net &model, torch::Tensor x, std::vector<std::function<float()>> &later) {
  auto y = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'testing' is evaluation code
  later.push_back([y] { return y.sum().item<float>(); });
}

// A local reference to a member is not the function's own storage.
struct Cache {
  std::vector<torch::Tensor> items;
};
void valid(Net &model, torch::Tensor x, Cache &c) {
  auto &items = c.items;
  items.push_back(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-4]]:6: note: 'valid' is evaluation code
}

// An in-place write into a parameter's tensor (a copy of a Tensor shares its storage).
void prediction(Net &model, torch::Tensor x, torch::Tensor out) {
  out.copy_(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: {{.*}}hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
  // CHECK-MESSAGES: :[[@LINE-3]]:6: note: 'prediction' is evaluation code
}
