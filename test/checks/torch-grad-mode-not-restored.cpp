// RUN: %check_torch_tidy %s torch-grad-mode-not-restored %t
// RUN: %check_torch_tidy -check-suffix=NOEXC --no-fix %s torch-grad-mode-not-restored %t \
// RUN:   -config="{CheckOptions: {torch-grad-mode-not-restored.CheckExceptionSafety: false}}"
#include <torch/torch.h>
#include <stdexcept>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

using Loader = std::unique_ptr<
    torch::data::StatelessDataLoader<torch::data::datasets::MNIST, torch::data::samplers::RandomSampler>>;

void train_more(Net &model);
int count() noexcept;

// ---- not switched back on every path ---------------------------------------

double early_return(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autograd switched off here is not switched back on on every path out of 'early_return': it stays off for the caller, whose training then records no graph and gets no gradients [torch-grad-mode-not-restored]
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: autograd switched off here is not switched back on on every path out of 'early_return'
  auto out = model(x);
  if (!out.defined())
    return 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autograd is still off when it returns here
  torch::autograd::GradMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: no fix-it: variables declared while autograd is off are used after it is switched back on; hold a 'torch::NoGradGuard' for the scope that needs autograd off
  return out.sum().item<double>();
}

void throws_out(Net &model, torch::Tensor x) {
  at::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autograd switched off here is not switched back on on every path out of 'throws_out'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: autograd switched off here is not switched back on
  auto out = model(x);
  if (out.dim() != 2)
    throw std::runtime_error("bad output");
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autograd is still off when this exception leaves
  at::GradMode::set_enabled(true);
}
// CHECK-FIXES: {{^}}void throws_out(Net &model, torch::Tensor x) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NOT: at::GradMode::set_enabled(true);

struct Trainer {
  Net model;
  Loader loader;
  void validate() {
    c10::GradMode::set_enabled(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is not switched back on on every path out of 'validate'
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autograd switched off here is not switched back on
    for (auto &batch : *loader)
      model(batch.front().data);
  }
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: autograd is still off at the end
  // CHECK-MESSAGES: :[[@LINE-7]]:5: note: no fix-it: autograd is not switched back on later in the same block; hold a 'torch::NoGradGuard' for the scope that needs autograd off

  void break_out(torch::Tensor x) {
    while (true) {
      torch::autograd::GradMode::set_enabled(false);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: autograd switched off here is not switched back on on every path out of 'break_out'
      // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:7: warning: autograd switched off here is not switched back on
      auto y = model(x);
      if (y.dim() == 0)
        break;
      torch::autograd::GradMode::set_enabled(true);
      train_more(model);
    }
  }
  // CHECK-FIXES: {{^}}    while (true) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}      {{{$}}
  // CHECK-FIXES-NEXT: {{^}}        torch::NoGradGuard no_grad;{{$}}
  // CHECK-FIXES: {{^}}        break;{{$}}
  // CHECK-FIXES-NEXT: {{^}}      }{{$}}
  // CHECK-FIXES-NEXT: {{^}}      train_more(model);{{$}}
};

void skip_empty(Net &model, const std::vector<torch::Tensor> &xs) {
  for (size_t i = 0; i < xs.size(); ++i) {
    torch::autograd::GradMode::set_enabled(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is not switched back on on every path out of 'skip_empty'
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autograd switched off here is not switched back on
    if (xs[i].numel() == 0)
      continue;
    model(xs[i]);
    torch::autograd::GradMode::set_enabled(true);
  }
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: autograd is still off at the end
// CHECK-FIXES: {{^}}  for (size_t i = 0; i < xs.size(); ++i) {{{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES: {{^}}    model(xs[i]);{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}

void in_a_lambda(Net &model) {
  auto infer = [&](torch::Tensor x) {
    torch::autograd::GradMode::set_enabled(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is not switched back on on every path out of the lambda
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autograd switched off here is not switched back on
    return model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autograd is still off when it returns here
  };
  infer(torch::randn({2, 4}));
}

// ---- switched back on, but not when something throws -----------------------

void eval_step(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autograd switched off here is switched back on only when nothing throws: an exception leaves it off for the caller, whose training then records no graph and gets no gradients [torch-grad-mode-not-restored]
  model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before autograd is switched back on
  torch::autograd::GradMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back on here
  train_more(model);
}
// CHECK-FIXES: {{^}}void eval_step(Net &model, torch::Tensor x) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  {{{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES: {{^}}  model(x);{{$}}
// CHECK-FIXES: {{^}}  }{{$}}
// CHECK-FIXES: {{^}}  train_more(model);{{$}}

double loop_restores_previous(Net &model, Loader &loader) {
  double total = 0;
  for (auto &batch : *loader) {
    bool was = torch::autograd::GradMode::is_enabled();
    torch::autograd::GradMode::set_enabled(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is switched back on only when nothing throws
    int no_grad = 0;
    total += model(batch.front().data).sum().item<double>() + no_grad;
    torch::autograd::GradMode::set_enabled(was);
  }
  return total;
}
// CHECK-FIXES: {{^}}    torch::NoGradGuard no_grad_;{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}
// CHECK-FIXES-NEXT: {{^}}    int no_grad = 0;{{$}}
// CHECK-FIXES-NEXT: {{^}}    total += model(batch.front().data).sum().item<double>() + no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}

void do_loop(Net &model, torch::Tensor x) {
  int i = 0;
  do {
    torch::autograd::GradMode::set_enabled(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is switched back on only when nothing throws
    auto y = model(x);
    torch::autograd::GradMode::set_enabled(true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: no fix-it: variables declared while autograd is off are used after
    y.sum().backward();
  } while (++i < 3);
}

#define NO_GRAD() torch::autograd::GradMode::set_enabled(false)
void in_macro(Net &model, torch::Tensor x) {
  NO_GRAD();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autograd switched off here is switched back on only when nothing throws
  model(x);
  torch::autograd::GradMode::set_enabled(true);
}
// CHECK-FIXES: {{^}}  NO_GRAD();{{$}}

// Switched off and on under the same flag, a parameter the function never
// writes: the switch back runs whenever the switch-off did; only an exception
// can leave autograd off.
void copy_weights_if(torch::Tensor dst, torch::Tensor src, bool frozen) {
  if (frozen)
    torch::autograd::GradMode::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autograd switched off here is switched back on only when nothing throws
  dst.copy_(src);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  if (frozen)
    torch::autograd::GradMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: switched back on here
  // CHECK-MESSAGES: :[[@LINE-7]]:5: note: no fix-it: autograd is not switched back on later in the same block
}

// ---- must not flag ----------------------------------------------------------

int main() {
  torch::autograd::GradMode::set_enabled(false); // inference program: off for good
  Net model;
  model(torch::randn({2, 4}));
  return 0;
}

void disable_autograd() { torch::autograd::GradMode::set_enabled(false); }
void enable_autograd() { torch::autograd::GradMode::set_enabled(true); }

void restored_by_handler(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(false);
  try {
    model(x);
  } catch (...) {
    torch::autograd::GradMode::set_enabled(true);
    throw;
  }
  torch::autograd::GradMode::set_enabled(true);
}

void nothing_throws(Net &model) {
  torch::autograd::GradMode::set_enabled(false);
  int n = count();
  torch::autograd::GradMode::set_enabled(true);
  (void)n;
}

[[noreturn]] void fatal(const char *message) noexcept;
void exits_on_error(Net &model, torch::Tensor x, bool ok) {
  torch::autograd::GradMode::set_enabled(false);
  if (!ok)
    fatal("bad input"); // ends the program, not the function
  int n = count();
  torch::autograd::GradMode::set_enabled(true);
  (void)n;
}

void guard(Net &model, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  model(x);
}

void switched_on(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(true);
  model(x);
}
