// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t -config="{CheckOptions: {TorchSummaries: '%S/Inputs/summaries/eval-callers-guarded.json'}}"
// RUN: %check_torch_tidy --no-fix -check-suffix=ALONE %s torch-eval-without-no-grad %t
// Evaluation code whose callers are in other files (docs/cross-function.md,
// "Across translation units"): the linked summaries
// (Inputs/summaries/eval-callers-guarded.json, fields "calledGuarded" and
// "calledUnguarded") say whether every call of a function in the rest of the
// project holds a guard. Without them (ALONE) no caller is known: every
// evaluation function here is reported.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// ---- silent: every caller in the project holds a guard ---------------------

// Called in other files only, each time under a NoGradGuard (calledGuarded).
torch::Tensor evaluate_batch(Net &m, torch::Tensor x) { return m->forward(x); }
// CHECK-MESSAGES-ALONE: :[[@LINE-1]]:67: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-FIXES: torch::Tensor evaluate_batch(Net &m, torch::Tensor x) { return m->forward(x); }

// eval() then a forward pass: the same rule (callers guarded elsewhere).
double score_after_eval(Net &m, torch::Tensor x) {
  m->eval();
  return m->forward(x).sum().item<double>();
  // CHECK-MESSAGES-ALONE: :[[@LINE-1]]:13: warning: forward pass in evaluation code runs with autograd enabled
}

// ---- still warned ----------------------------------------------------------

// Guarded in one file, unguarded in another (in both lists).
torch::Tensor evaluate_mixed(Net &m, torch::Tensor x) { return m->forward(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:67: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES-ALONE: :[[@LINE-2]]:67: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-FIXES: torch::Tensor evaluate_mixed(Net &m, torch::Tensor x) { torch::NoGradGuard no_grad; return m->forward(x); }

// Called unguarded elsewhere only.
torch::Tensor evaluate_open(Net &m, torch::Tensor x) { return m->forward(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:66: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES-ALONE: :[[@LINE-2]]:66: warning: forward pass in evaluation code runs with autograd enabled

// Called nowhere in the project (no entry in the linked file): evaluation
// code by its name, as within one file.
torch::Tensor evaluate_nowhere(Net &m, torch::Tensor x) { return m->forward(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:69: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES-ALONE: :[[@LINE-2]]:69: warning: forward pass in evaluation code runs with autograd enabled

// Guarded everywhere else, but called here without a guard: the caller here
// decides.
torch::Tensor evaluate_here_too(Net &m, torch::Tensor x) { return m->forward(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:70: warning: forward pass in evaluation code runs with autograd enabled
// CHECK-MESSAGES-ALONE: :[[@LINE-2]]:70: warning: forward pass in evaluation code runs with autograd enabled
double report_here(Net &m, torch::Tensor x) { return evaluate_here_too(m, x).sum().item<double>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:54: note: 'evaluate_here_too' is called here with autograd enabled
// CHECK-MESSAGES-ALONE: :[[@LINE-2]]:54: note: 'evaluate_here_too' is called here with autograd enabled
