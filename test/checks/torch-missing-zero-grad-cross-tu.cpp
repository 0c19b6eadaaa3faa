// RUN: %check_torch_tidy %s torch-missing-zero-grad %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/missing-zero-grad.json'}}"
// RUN: %check_torch_tidy -check-suffix=DEPTH1 %s torch-missing-zero-grad %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/missing-zero-grad.json', torch-missing-zero-grad.CallDepth: 1}}"
// RUN: %check_torch_tidy -check-suffix=ALONE %s torch-missing-zero-grad %t
// Helpers defined in other files (docs/cross-function.md, "Across translation
// units"): their linked summaries (Inputs/summaries/missing-zero-grad.json,
// field "loopEvents") say what a call of each adds to the loop. Without the
// summaries (ALONE) nothing here is known to train: no warning.
#include <torch/torch.h>

void train_step(int batch);    // forward, backward, step            "BS"
void train_zeroing(int batch); // zero_grad, backward, step          "ZBS"
void zero_all(int batch);      // zero_grad                          "Z"
void train_maybe(int batch);   // backward and step under an `if`    "O"
void step_only(int batch);     // step                               "S"
void step_closure(int batch);  // backward, step(closure)            "BC"
void train_deep(int batch);    // backward and step one call further ["", "BS"]
void no_summary(int batch);    // its file failed to parse: no summary
struct Trainer {
  void fit_batch(int batch);      // "BS"
  virtual void vstep(int batch);  // "BS", but which override runs is unknown
};

// ---- positives -------------------------------------------------------------

void loop_calls_helper(int n) {
  for (int i = 0; i < n; ++i)
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-2]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'train_step' is called in the training loop here; it is defined in another file and runs a backward pass and steps the optimizer there, without zeroing the gradients (linked summaries, option TorchSummaries)
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: no fix-it: 'train_step' is defined in another file; zero the gradients there, before its backward pass, or at the start of the loop body
    train_step(i);
}

// A method of an object that outlives the loop: no fix-it on the object
// either (it is not an optimizer).
void loop_calls_method(Trainer &t, int epochs) {
  for (int e = 0; e < epochs; ++e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-2]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'fit_batch' is called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: no fix-it: 'fit_batch' is defined in another file
    t.fit_batch(e);
  }
}

// The backward pass here, the step in the other file.
struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);
void backward_here(Net &model, torch::Tensor x, int n) {
  for (int i = 0; i < n; ++i) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES-DEPTH1: :[[@LINE-2]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE+3]]:20: note: gradients accumulate here
    // CHECK-MESSAGES: :[[@LINE+3]]:5: note: 'step_only' is called in the training loop here; it is defined in another file and steps the optimizer there
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: no fix-it: 'step_only' is defined in another file
    model(x).sum().backward();
    step_only(i);
  }
}

// A helper that reaches backward and step one call further: seen with the
// default CallDepth (3), not with CallDepth 1.
void loop_calls_deep(int n) {
  while (n-- > 0)
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE+2]]:5: note: 'train_deep' is called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: no fix-it: 'train_deep' is defined in another file
    train_deep(n);
}

// ---- look-alikes that stay silent ---------------------------------------------

// The helper zeroes the gradients itself.
void helper_zeroes(int n) {
  for (int i = 0; i < n; ++i)
    train_zeroing(i);
}

// The loop zeroes them, here or through a helper of a third file.
void loop_zeroes(torch::optim::SGD &opt, int n) {
  for (int i = 0; i < n; ++i) {
    opt.zero_grad();
    train_step(i);
  }
}
void third_file_zeroes(int n) {
  for (int i = 0; i < n; ++i) {
    zero_all(i);
    train_step(i);
  }
}

// The helper trains under a condition: which iterations zero is unknown.
void conditional_helper(int n) {
  for (int i = 0; i < n; ++i)
    train_maybe(i);
}

// step(closure): the closure may zero.
void closure_helper(int n) {
  for (int i = 0; i < n; ++i)
    step_closure(i);
}

// No summary (the defining file did not parse), virtual dispatch, a function
// pointer: unknown, silent.
void unknown_helpers(Trainer &t, void (*fp)(int), int n) {
  for (int i = 0; i < n; ++i) {
    no_summary(i);
    t.vstep(i);
    fp(i);
  }
}
