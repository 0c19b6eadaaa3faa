// RUN: %check_torch_tidy %s torch-missing-zero-grad %t
// RUN: %check_torch_tidy -check-suffix=DEPTH0 %s torch-missing-zero-grad %t -config="{CheckOptions: {torch-missing-zero-grad.CallDepth: 0}}"
// backward / step / zero_grad split across a loop and the helpers it calls.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// ---- positives -------------------------------------------------------------

// A trainer whose step() holds backward and step, called from the loop; nothing
// zeroes anywhere. The fix-it goes into the step, before its backward pass.
struct Trainer {
  Net model;
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};

  void train_step(torch::Tensor x) {
    auto loss = model(x).sum();
    loss.backward();
    optimizer.step();
  }
  void fit(const std::vector<torch::Tensor> &data) {
    for (const auto &x : data)
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      // CHECK-MESSAGES: :[[@LINE-6]]:10: note: gradients accumulate here
      // CHECK-MESSAGES: :[[@LINE-6]]:15: note: the optimizer steps here
      // CHECK-MESSAGES: :[[@LINE+1]]:7: note: 'train_step' is called in the training loop here
      train_step(x);
  }
};
// CHECK-FIXES: void train_step(torch::Tensor x) {
// CHECK-FIXES-NEXT: {{^    }}optimizer.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^    }}auto loss = model(x).sum();

// The optimizer handed to a free helper that runs backward and step.
void update(Net &model, torch::optim::Optimizer &opt, torch::Tensor x) {
  model(x).sum().backward();
  opt.step();
}
void epochs(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE-6]]:18: note: gradients accumulate here
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: the optimizer steps here
    // CHECK-MESSAGES: :[[@LINE+1]]:5: note: 'update' is called in the training loop here
    update(model, opt, x);
  }
}
// CHECK-FIXES: void update(Net &model, torch::optim::Optimizer &opt, torch::Tensor x) {
// CHECK-FIXES-NEXT: {{^  }}opt.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^  }}model(x).sum().backward();

// backward in the loop, step in a helper: no fix-it (zeroing in the helper
// would clear the gradients it steps with).
struct Stepper {
  torch::optim::Adam *adam;
  void apply() { adam->step(); }
};
void backward_here_step_there(Net &model, Stepper &s, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE+4]]:20: note: gradients accumulate here
    // CHECK-MESSAGES: :[[@LINE-6]]:24: note: the optimizer steps here
    // CHECK-MESSAGES: :[[@LINE+3]]:5: note: 'apply' is called in the training loop here
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: no fix-it: the optimizer steps in 'apply' and the backward pass runs outside it
    model(x).sum().backward();
    s.apply();
  }
}

// ---- negatives -------------------------------------------------------------

// zero_grad in the caller's loop, backward and step in the helper.
struct ZeroingCaller {
  Net model;
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};
  void step(torch::Tensor x) {
    model(x).sum().backward();
    optimizer.step();
  }
  void fit(const std::vector<torch::Tensor> &data) {
    for (const auto &x : data) {
      optimizer.zero_grad();
      step(x);
    }
  }
};

// The helper zeroes first.
void full_step(Net &model, torch::optim::Optimizer &opt, torch::Tensor x) {
  opt.zero_grad();
  model(x).sum().backward();
  opt.step();
}
void loop_full_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i)
    full_step(model, opt, x);
}

// The helper steps only sometimes: its events are not on a straight line.
void maybe_step(torch::optim::Optimizer &opt, int i) {
  if (i % 4 == 0) {
    opt.step();
    opt.zero_grad();
  }
}
void accumulate_in_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    model(x).sum().backward();
    maybe_step(opt, i);
  }
}

// A virtual step is not followed: an override may zero.
struct Learner {
  virtual ~Learner() = default;
  virtual void learn(torch::Tensor x) = 0;
};
void loop_virtual(Learner &l, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    l.learn(x);
}

// Recursion ends: the helper calls itself.
void recursive_step(Net &model, torch::optim::Optimizer &opt, torch::Tensor x, int n) {
  model(x).sum().backward();
  opt.step();
  if (n > 0)
    recursive_step(model, opt, x, n - 1);
}
void loop_recursive(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    recursive_step(model, opt, x, 2);
  }
}
