// RUN: %check_torch_tidy %s torch-autocast-not-restored %t
// RUN: %cxx -fsyntax-only -std=c++17 -isystem %mocks -Wno-deprecated-declarations %t.cpp
// RUN: %check_torch_tidy -check-suffix=NOEXC --no-fix %s torch-autocast-not-restored %t \
// RUN:   -config="{CheckOptions: {torch-autocast-not-restored.CheckExceptionSafety: false}}"
#include <torch/torch.h>
#include <ATen/autocast_mode.h>
#include <stdexcept>
// CHECK-FIXES: {{^}}#include <libtorch_tidy/amp.h>{{$}}

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

void report(const torch::Tensor &t);
int count() noexcept;
torch::ScalarType half_precision_type();

// ---- not switched off on every path ----------------------------------------

double early_return(Net &model, torch::Tensor x) {
  at::autocast::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is not switched off on every path out of 'early_return': it stays on for the caller, whose later code then runs in reduced precision and whose cast cache of weight copies is never cleared [torch-autocast-not-restored]
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: autocast switched on here is not switched off on every path out of 'early_return'
  auto out = model(x);
  if (!out.defined())
    return 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autocast is still on when it returns here
  at::autocast::set_enabled(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: no fix-it: variables declared while autocast is on are used after it is switched off; hold a 'libtorch_tidy::amp::AutocastGuard' for the scope that needs autocast
  return out.sum().item<double>();
}

void throws_out(Net &model, torch::Tensor x) {
  at::autocast::set_autocast_gpu_dtype(at::kHalf);
  at::autocast::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is not switched off on every path out of 'throws_out'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: autocast switched on here is not switched off
  auto out = model(x);
  if (out.dim() != 2)
    throw std::runtime_error("bad output");
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autocast is still on when this exception leaves
  at::autocast::clear_cache();
  at::autocast::set_enabled(false);
}
// The dtype setter folds into the guard, the guard clears the cache itself.
// CHECK-FIXES: {{^}}void throws_out(Net &model, torch::Tensor x) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto out = model(x);{{$}}
// CHECK-FIXES-NEXT: {{^}}  if (out.dim() != 2){{$}}
// CHECK-FIXES-NEXT: {{^}}    throw std::runtime_error("bad output");{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}}{{$}}

// Training code that switches autocast on and leaves it on (bfloat16 from the
// line before): everything the caller runs afterwards is autocast too.
struct Trainer {
  Net model;
  void train_epoch(torch::Tensor x) {
    at::autocast::set_autocast_gpu_dtype(torch::kBFloat16);
    at::autocast::set_enabled(true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autocast switched on here is not switched off on every path out of 'train_epoch'
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autocast switched on here is not switched off
    for (int i = 0; i < 8; ++i)
      model(x).sum().backward();
  }
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: autocast is still on at the end
  // CHECK-MESSAGES: :[[@LINE-7]]:5: note: no fix-it: autocast is not switched off later in the same block; hold a 'libtorch_tidy::amp::AutocastGuard' for the scope that needs autocast
};

// Switched off for the CPU only: CUDA's autocast stays on.
void other_device_off(Net &model, torch::Tensor x) {
  at::autocast::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is not switched off on every path out of 'other_device_off'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: autocast switched on here is not switched off
  report(model(x));
  at::autocast::set_cpu_enabled(false);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: autocast is still on at the end
// CHECK-MESSAGES: :[[@LINE-7]]:3: note: no fix-it: autocast is not switched off later in the same block

void in_a_lambda(Net &model) {
  auto infer = [&](torch::Tensor x) {
    at::autocast::set_autocast_enabled(at::kCUDA, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autocast switched on here is not switched off on every path out of the lambda
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autocast switched on here is not switched off
    return model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: autocast is still on when it returns here
  };
  infer(torch::randn({2, 4}));
}

// ---- switched off, but not when something throws ---------------------------

// The 2.x spelling: the dtype set first folds into the guard; statements after
// the switch-off keep running without autocast, outside the new scope.
void eval_step(Net &model, torch::Tensor x) {
  at::autocast::set_autocast_dtype(at::kCUDA, at::kHalf);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws: an exception leaves it on for the caller, whose later code then runs in reduced precision and whose cast cache of weight copies is never cleared [torch-autocast-not-restored]
  report(model(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before autocast is switched off
  at::autocast::set_autocast_enabled(at::kCUDA, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched off here
  report(x);
}
// CHECK-FIXES: {{^}}void eval_step(Net &model, torch::Tensor x) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  {{{$}}
// CHECK-FIXES-NEXT: {{^}}    libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  report(model(x));{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  report(x);{{$}}

// The hand-rolled loop of a LibTorch mixed-precision example: no dtype given,
// so the guard takes the one autocast has now (as torch.autocast does).
void warm_up(Net &model, torch::Tensor x, int steps) {
  for (int i = 0; i < steps; ++i) {
    at::autocast::set_enabled(true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autocast switched on here is switched off only when nothing throws
    model->forward(x);
    at::autocast::clear_cache();
    at::autocast::set_enabled(false);
  }
}
// CHECK-FIXES: {{^}}  for (int i = 0; i < steps; ++i) {{{$}}
// CHECK-FIXES-NEXT: {{^}}    libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::autocast::get_autocast_gpu_dtype());{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}
// CHECK-FIXES-NEXT: {{^}}    model->forward(x);{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}

// Restoring a saved state is a switch-off; the CPU spelling gives a CPU guard.
torch::Tensor cpu_forward(Net &model, torch::Tensor x) {
  torch::Tensor out;
  {
    bool was = at::autocast::is_cpu_enabled();
    at::autocast::set_cpu_enabled(true);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autocast switched on here is switched off only when nothing throws
    int autocast = 0;
    out = model(x) + autocast;
    at::autocast::set_cpu_enabled(was);
  }
  return out;
}
// CHECK-FIXES: {{^}}    libtorch_tidy::amp::AutocastGuard autocast_(at::kCPU, at::autocast::get_autocast_cpu_dtype());{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}
// CHECK-FIXES-NEXT: {{^}}    int autocast = 0;{{$}}
// CHECK-FIXES-NEXT: {{^}}    out = model(x) + autocast;{{$}}
// CHECK-FIXES-NEXT: {{^}}  }{{$}}

// A device chosen at run time: the guard takes the same expression.
void on_device(Net &model, torch::Tensor x, c10::DeviceType device) {
  at::autocast::set_autocast_enabled(device, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws
  report(model(x));
  at::autocast::set_autocast_enabled(device, false);
}
// CHECK-FIXES: {{^}}  libtorch_tidy::amp::AutocastGuard autocast(device, at::autocast::get_autocast_dtype(device));{{$}}
// CHECK-FIXES-NEXT: {{^}}  //{{$}}
// CHECK-FIXES-NEXT: {{^}}  report(model(x));{{$}}
// CHECK-FIXES-NEXT: {{^}}}{{$}}

// A 2.x-only per-device spelling.
void on_xla(Net &model, torch::Tensor x) {
  at::autocast::set_xla_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws
  report(model(x));
  at::autocast::set_xla_enabled(false);
}
// CHECK-FIXES: {{^}}  libtorch_tidy::amp::AutocastGuard autocast(c10::DeviceType::XLA, at::autocast::get_autocast_dtype(c10::DeviceType::XLA));{{$}}

// A project's switch macros: flagged, no fix-it inside macros.
#define AMP_ON()                                                                                   \
  {                                                                                                \
    at::autocast::set_enabled(true);                                                               \
    at::autocast::set_autocast_gpu_dtype(torch::kBFloat16);                                        \
  }
#define AMP_OFF()                                                                                  \
  {                                                                                                \
    at::autocast::clear_cache();                                                                   \
    at::autocast::set_enabled(false);                                                              \
  }
void with_macros(Net &model, torch::Tensor x) {
  AMP_ON();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: autocast switched on here is switched off only when nothing throws
  report(model(x));
  AMP_OFF();
}
// CHECK-FIXES: {{^}}  AMP_ON();{{$}}
// CHECK-FIXES: {{^}}  AMP_OFF();{{$}}

// An SSD trainer's loop: switched on and off under the same flag, a local the
// function never writes, so the switch-off runs whenever the switch-on did;
// only an exception can leave autocast on.
void amp_if_enabled(Net &model, torch::Tensor x, int precision, int steps) {
  bool use_amp = precision != 32;
  at::DeviceType device_type = at::kCUDA;
  for (int i = 0; i < steps; ++i) {
    if (use_amp) {
      at::autocast::set_autocast_enabled(device_type, true);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: autocast switched on here is switched off only when nothing throws
      at::autocast::increment_nesting();
    }
    auto out = model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: note: this call may throw before autocast is switched off
    if (use_amp) {
      at::autocast::decrement_nesting();
      at::autocast::set_autocast_enabled(device_type, false);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: switched off here
    }
    // CHECK-MESSAGES: :[[@LINE-11]]:7: note: no fix-it: autocast is not switched off later in the same block; hold a 'libtorch_tidy::amp::AutocastGuard' for the scope that needs autocast
    report(out);
  }
}

// The flag is written between the two tests: the second may skip the switch-off.
void amp_flag_written(Net &model, torch::Tensor x, bool use_amp) {
  if (use_amp)
    at::autocast::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: autocast switched on here is not switched off on every path out of 'amp_flag_written'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: autocast switched on here is not switched off on every path out of 'amp_flag_written'
  auto out = model(x);
  use_amp = out.defined();
  if (use_amp)
    at::autocast::set_enabled(false);
  report(out);
}

// ---- must not flag ----------------------------------------------------------

int main() {
  at::autocast::set_enabled(true); // a program that runs autocast for good
  Net model;
  model(torch::randn({2, 4}));
  return 0;
}

void enable_amp() { at::autocast::set_enabled(true); }
void disable_amp() { at::autocast::set_enabled(false); }

// A project's own scope class: the constructor switches on, the destructor off.
class AutocastScope {
public:
  AutocastScope() {
    prev = at::autocast::is_autocast_enabled(at::kCUDA);
    at::autocast::set_autocast_dtype(at::kCUDA, half_precision_type());
    at::autocast::set_autocast_enabled(at::kCUDA, true);
  }
  ~AutocastScope() {
    at::autocast::set_autocast_enabled(at::kCUDA, prev);
    at::autocast::clear_cache();
  }

private:
  bool prev;
};

void restored_by_handler(Net &model, torch::Tensor x) {
  at::autocast::set_enabled(true);
  try {
    model(x);
  } catch (...) {
    at::autocast::set_enabled(false);
    throw;
  }
  at::autocast::set_enabled(false);
}

void nothing_throws() {
  at::autocast::set_enabled(true);
  int n = count();
  at::autocast::set_enabled(false);
  (void)n;
}

void by_config(Net &model, torch::Tensor x, bool use_amp) {
  at::autocast::set_enabled(use_amp); // chosen at run time: not checked
  model(x);
}

void autograd_only(Net &model, torch::Tensor x) {
  torch::autograd::GradMode::set_enabled(true);
  model(x);
}
