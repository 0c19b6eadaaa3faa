// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
#include <torch/torch.h>
#include <torch/script.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// ---- (b) evaluation code by name ------------------------------------------

double evaluate(Net &model, const std::vector<torch::Tensor> &batches) {
  double total = 0;
  for (const auto &x : batches) {
    auto out = model->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass in evaluation code runs with autograd enabled: its activations and graph are kept for a backward pass that never comes; hold a 'torch::NoGradGuard' while evaluating [torch-eval-without-no-grad]
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'evaluate' is evaluation code by its name (option EvalFunctionPattern)
    total += out.sum().item<double>();
    auto again = model(x); // one warning per function, not per call
  }
  return total;
}
// CHECK-FIXES: double evaluate(Net &model, const std::vector<torch::Tensor> &batches) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: double total = 0;

torch::Tensor run_validation(Net &model, torch::Tensor x) { return model(x); }
// CHECK-MESSAGES: :[[@LINE-1]]:68: warning: forward pass in evaluation code
// CHECK-MESSAGES: :[[@LINE-2]]:15: note: 'run_validation' is evaluation code
// CHECK-FIXES: torch::Tensor run_validation(Net &model, torch::Tensor x) { torch::NoGradGuard no_grad; return model(x); }

struct Trainer {
  Net model;
  torch::nn::Sequential head;
  torch::nn::AnyModule any;
  float testEpoch(torch::Tensor x) {
    auto y = head->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'testEpoch' is evaluation code
    return y.sum().item<float>();
  }
  // CHECK-FIXES: float testEpoch(torch::Tensor x) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
  // CHECK-FIXES-NEXT: auto y = head->forward(x);
  torch::Tensor Predict(torch::Tensor x) {
    int no_grad = 0; // the guard's name must not collide
    return any.forward(x) + no_grad;
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-4]]:17: note: 'Predict' is evaluation code
  }
  // CHECK-FIXES: torch::Tensor Predict(torch::Tensor x) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad_;
  // CHECK-FIXES-NEXT: int no_grad = 0;
  float validate(torch::Tensor x, float no_grad) { // a parameter's name is taken too
    return head->forward(x).sum().item<float>() * no_grad;
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-3]]:9: note: 'validate' is evaluation code
  }
  // CHECK-FIXES: float validate(torch::Tensor x, float no_grad) { // a parameter's name is taken too
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad_;
  // CHECK-FIXES-NEXT: return head->forward(x).sum().item<float>() * no_grad;
  float validateBatch(torch::Tensor x) {
    using no_grad = float; // a type's name is taken too
    no_grad score = head->forward(x).sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: 'validateBatch' is evaluation code
    return score;
  }
  // CHECK-FIXES: float validateBatch(torch::Tensor x) {
  // CHECK-FIXES-NEXT: torch::NoGradGuard no_grad_;
  // CHECK-FIXES-NEXT: using no_grad = float; // a type's name is taken too
};

// ---- (a) code after eval() -------------------------------------------------

void train_then_evaluate_loop(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    model->train();
    auto loss = model->forward(x).sum();
    opt.zero_grad();
    loss.backward(); // before eval(): does not exempt what follows
    opt.step();

    model->eval();
    auto out = model->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-3]]:12: note: module switched to evaluation mode here
    auto out2 = model(x);
  }
}
// CHECK-FIXES: {{^}}    model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad;{{$}}

void train_after_eval_in_same_block(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  model->eval();
  auto probe = model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: module switched to evaluation mode here
  model->train();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: note: no fix-it: 'train()' follows in the same block
  auto loss = model->forward(x).sum(); // training: not flagged
  loss.backward();
  opt.step();
}
// CHECK-FIXES: {{^}}  model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto probe = model->forward(x);{{$}}

void switch_off_training(Net &model, torch::Tensor x) {
  model->train(false);
  model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:10: note: module switched to evaluation mode here
}
// CHECK-FIXES: {{^}}  model->train(false);{{$}}
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;

void maybe_quick_mode(Net &model, bool quick, torch::Tensor x) {
  if (quick)
    model->eval();
  model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: module switched to evaluation mode here
  // no fix-it: a guard after the eval() would not reach the forward pass
}
// CHECK-FIXES: {{^}}    model->eval();{{$}}
// CHECK-FIXES-NEXT: {{^}}  model->forward(x);{{$}}

// ---- (a) order from the control-flow graph ----------------------------------

// A train() in one branch ends the evaluation region on that branch only.
void train_in_one_branch(Net &model, bool resume, torch::Tensor x) {
  model->eval();
  if (resume)
    model->train();
  auto scores = model->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-5]]:10: note: module switched to evaluation mode here
  // CHECK-MESSAGES: :[[@LINE-4]]:12: note: no fix-it: 'train()' follows in the same block
}

// eval() on one branch, train() on the other: the forward pass after both runs
// in evaluation mode on the first.
torch::Tensor act(Net &model, bool greedy, torch::Tensor x) {
  if (greedy)
    model->eval();
  else
    model->train();
  return model->forward(x).argmax(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-5]]:12: note: module switched to evaluation mode here
}

// Look-alikes: train() on every path; a backward pass that some path from
// eval() reaches (the graph is wanted there).
void train_on_every_branch(Net &model, bool fine, torch::optim::SGD &opt, torch::Tensor x) {
  model->eval();
  if (fine)
    model->train();
  else
    model->train(true);
  auto loss = model->forward(x).sum();
  loss.backward();
  opt.step();
}
// The same inside a lambda: its body has an order of its own.
void train_in_one_branch_in_lambda(Net &model, bool resume, torch::Tensor x) {
  auto score = [&] {
    model->eval();
    if (resume)
      model->train();
    return model->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-5]]:12: note: module switched to evaluation mode here
  };
  score();
}
void train_on_every_branch_in_lambda(Net &model, bool fine, torch::optim::SGD &opt,
                                     torch::Tensor x) {
  auto step = [&] {
    model->eval();
    if (fine)
      model->train();
    else
      model->train(true);
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
  };
  step();
}
void eval_or_train_step(Net &model, bool validate, torch::optim::SGD &opt, torch::Tensor x) {
  if (validate)
    model->eval();
  else
    model->train();
  auto out = model->forward(x);
  if (!validate) {
    out.sum().backward();
    opt.step();
  }
}

// ---- (c) TorchScript modules loaded here -----------------------------------

int main_like(int argc, char **argv) {
  torch::jit::script::Module module = torch::jit::load(argv[1]);
  std::vector<torch::jit::IValue> inputs{torch::ones({1, 3})};
  auto out = module.forward(inputs).toTensor();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass in evaluation code
  // CHECK-MESSAGES: :[[@LINE-4]]:39: note: module loaded with 'torch::jit::load' here
  return out.size(0);
}
// CHECK-FIXES: int main_like(int argc, char **argv) {
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: torch::jit::script::Module module = torch::jit::load(argv[1]);

// ---- negatives: guarded ----------------------------------------------------

double evaluate_guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  return model->forward(x).sum().item<double>();
}
double evaluate_at_guard(Net &model, torch::Tensor x) {
  at::NoGradGuard g;
  return model(x).sum().item<double>();
}
double evaluate_c10_guard(Net &model, torch::Tensor x) {
  c10::NoGradGuard g;
  return model(x).sum().item<double>();
}
double evaluate_inference(Net &model, torch::Tensor x) {
  c10::InferenceMode guard;
  return model(x).sum().item<double>();
}
double evaluate_inference_true(Net &model, torch::Tensor x) {
  c10::InferenceMode guard(true);
  return model(x).sum().item<double>();
}
double evaluate_autograd_false(Net &model, torch::Tensor x) {
  torch::autograd::AutoGradMode mode(false);
  return model(x).sum().item<double>();
}
double evaluate_set_enabled(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(false);
  auto r = model(x).sum().item<double>();
  torch::autograd::GradMode::set_enabled(true);
  return r;
}
double evaluate_guard_in_outer_scope(Net &model, std::vector<torch::Tensor> xs) {
  c10::NoGradGuard g;
  double t = 0;
  for (auto &x : xs) {
    if (x.defined()) {
      t += model(x).sum().item<double>();
    }
  }
  return t;
}
#define NO_GRAD_SCOPE torch::NoGradGuard no_grad_scope_guard
double evaluate_macro_guard(Net &model, torch::Tensor x) {
  NO_GRAD_SCOPE;
  return model(x).sum().item<double>();
}
void eval_then_guard(Net &model, torch::Tensor x) {
  model->eval();
  torch::NoGradGuard no_grad;
  model->forward(x);
}

// ---- negatives: gradients wanted -------------------------------------------

torch::Tensor evaluate_saliency(Net &model, torch::Tensor x) {
  x.requires_grad_(true);
  auto score = model->forward(x).sum();
  score.backward();
  return x.grad();
}
torch::Tensor test_adversarial(Net &model, torch::Tensor x) {
  auto out = model(x).sum();
  auto grads = torch::autograd::grad({out}, {x});
  return grads[0];
}
void eval_then_backward(Net &model, torch::Tensor x) {
  model->eval(); // style transfer: module frozen, gradients wanted
  auto loss = model->forward(x).sum();
  loss.backward();
}

// A force field: the module's forward differentiates its energy with respect
// to its inputs (autograd::grad), so evaluating it needs autograd on, through
// `->forward` and through the holder's call alike.
struct ForceFieldImpl : torch::nn::Module {
  std::tuple<torch::Tensor, torch::Tensor> forward(torch::Tensor pos) {
    pos.set_requires_grad(true);
    auto energy = head->forward(pos).sum();
    auto forces = torch::autograd::grad({energy}, {pos}, {}, true, true)[0];
    return std::make_tuple(energy, -forces);
  }
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(ForceField);
float evaluate_forces(ForceField &model, std::vector<torch::Tensor> &xs) {
  model->eval();
  float total = 0;
  for (auto &x : xs) {
    auto [e, f] = model->forward(x);
    auto [e2, f2] = model(x);
    total += (f - f2).abs().sum().item<float>();
  }
  return total;
}

// ---- negatives: every call site is guarded, or trains ----------------------

torch::Tensor predict_inner(Net &model, torch::Tensor x) { return model(x); }
void caller_guarded(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  predict_inner(model, x);
}
void caller_guarded_too(Net &model, torch::Tensor x) {
  c10::InferenceMode guard;
  predict_inner(model, x);
}
torch::Tensor predict_step(Net &model, torch::Tensor x) { return model->forward(x); }
void training_uses_predict(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = predict_step(model, x).sum();
  loss.backward();
  opt.step();
}

// ---- negatives: not evaluation code ----------------------------------------

void train_epoch(Net &model, torch::Tensor x) {
  auto loss = model->forward(x).sum();
  loss.backward();
}
torch::Tensor latest_output(Net &model, torch::Tensor x) { return model(x); } // "latest" is no "test"
torch::Tensor contest(Net &model, torch::Tensor x) { return model(x); }
void eval_then_train(Net &model, torch::Tensor x) {
  model->eval();
  model->train();
  model->forward(x);
}
struct Evaluator {
  bool validate_shapes(torch::Tensor x) { return x.dim() == 2; } // no forward pass
};
void tracing(torch::Tensor x) {
  torch::jit::Module m = torch::jit::load("m.pt");
  m.train();
  m.forward({x});
}
#define DECLARE_TEST(name) void name##_Test_TestBody(Net &model, torch::Tensor x)
DECLARE_TEST(Shapes) { model(x); } // the name comes from a macro: no name rule

template <typename Loader> double test(Net &model, Loader &loader) {
  torch::NoGradGuard no_grad;
  double t = 0;
  for (auto &x : loader)
    t += model->forward(x).sum().template item<double>();
  return t;
}
double use_test(Net &model, std::vector<torch::Tensor> &v) { return test(model, v); }

template <typename Loader> double validate_template(Net &model, Loader &loader) {
  double t = 0;
  for (auto &x : loader)
    t += model->forward(x).sum().template item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: forward pass in evaluation code
    // CHECK-MESSAGES: :[[@LINE-5]]:35: note: 'validate_template' is evaluation code
  return t;
}
double use_validate(Net &model, std::vector<torch::Tensor> &v, std::vector<torch::Tensor> &w) {
  return validate_template(model, v) + validate_template(model, v);
}
