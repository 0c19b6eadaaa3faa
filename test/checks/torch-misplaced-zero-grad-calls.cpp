// RUN: %check_torch_tidy %s torch-misplaced-zero-grad %t
// RUN: %check_torch_tidy -check-suffix=DEPTH0 %s torch-misplaced-zero-grad %t -config="{CheckOptions: {torch-misplaced-zero-grad.CallDepth: 0}}"
// zero_grad between backward and step when they live in different functions.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// ---- positives -------------------------------------------------------------

// backward in a helper, zero_grad and step in the loop.
void compute_gradients(Net &model, torch::Tensor x) { model(x).sum().backward(); }
void zero_after_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    compute_gradients(model, x);
    opt.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'zero_grad()' between 'backward()' and 'step()' clears the gradients the step needs
    // CHECK-MESSAGES: :[[@LINE-6]]:70: note: gradients computed here
    // CHECK-MESSAGES: :[[@LINE+2]]:9: note: the optimizer steps here
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: 'compute_gradients' is called in the training loop here
    opt.step();
  }
}

// A trainer: the loop runs backward, then a method that zeroes and steps.
struct Trainer {
  Net model;
  torch::optim::Adam optimizer{model->parameters()};
  void apply_update() {
    optimizer.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'zero_grad()' between 'backward()' and 'step()'
    // CHECK-MESSAGES: :[[@LINE+7]]:22: note: gradients computed here
    // CHECK-MESSAGES: :[[@LINE+1]]:15: note: the optimizer steps here
    optimizer.step();
  }
  void fit(const std::vector<torch::Tensor> &data) {
    for (const auto &x : data) {
      // CHECK-MESSAGES: :[[@LINE+2]]:7: note: 'apply_update' is called in the training loop here
      model(x).sum().backward();
      apply_update();
    }
  }
};

// ---- negatives -------------------------------------------------------------

// zero_grad, then the helper that runs backward and step.
void backward_and_step(Net &model, torch::optim::Optimizer &opt, torch::Tensor x) {
  model(x).sum().backward();
  opt.step();
}
void zero_then_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    backward_and_step(model, opt, x);
  }
}

// Two optimizers: the helper steps one the caller does not name.
struct Gan {
  Net gen, disc;
  torch::optim::Adam opt_g{gen->parameters()};
  void step_generator() { opt_g.step(); }
};
void gan_loop(Gan &gan, torch::optim::Adam &opt_d, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    gan.disc(x).sum().backward();
    opt_d.zero_grad(); // another optimizer than the one stepped in the helper
    gan.step_generator();
  }
}

// zero_grad in a helper that runs it only sometimes.
void maybe_zero(torch::optim::Optimizer &opt, bool reset) {
  if (reset)
    opt.zero_grad();
}
void conditional_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    maybe_zero(opt, i % 2 == 0);
    opt.step();
  }
}
