// RUN: %check_torch_tidy %s torch-fp16-without-grad-scaler %t
#include <torch/torch.h>
#include <ATen/autocast_mode.h>
#include <libtorch_tidy/amp.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

torch::Tensor scale_loss(const torch::Tensor &loss);
// A project's own scaler, as public LibTorch code writes them.
struct ManualGradScaler {
  torch::Tensor scale(const torch::Tensor &loss);
  void step(torch::optim::Optimizer &optimizer);
  void update();
};
// A project's own autocast scope class.
struct AutocastScope {
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype);
  ~AutocastScope();
};
struct Config {
  c10::ScalarType amp_dtype;
};

// ---- float16 losses that reach backward unscaled ---------------------------
// (CUDA's default dtype: torch-fp16-without-grad-scaler-cuda-default.cpp; the
// look-alikes below set other dtypes.)

// The 2.x spelling with an explicit float16 dtype, backward inside the region.
void explicit_half(Net &model, torch::Tensor x, torch::Tensor y) {
  at::autocast::set_autocast_dtype(at::kCUDA, torch::kFloat16);
  at::autocast::set_autocast_enabled(at::kCUDA, true);
  torch::Tensor loss = torch::nll_loss(model(x), y);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: backward on a loss computed in float16 without loss scaling
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: autocast computes in float16 from here; scale the loss
  at::autocast::set_autocast_enabled(at::kCUDA, false);
}

// A float16 autocast scope; the loss is assigned inside, backward runs after.
void guard_scope(Net &model, torch::Tensor x, torch::Tensor y) {
  torch::Tensor loss;
  {
    libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
    auto logits = model->forward(x);
    loss = torch::cross_entropy_loss(logits, y);
  }
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: backward on a loss computed in float16 without loss scaling
  // CHECK-MESSAGES: :[[@LINE-6]]:39: note: float16 autocast scope declared here
}

// The loss expression itself, under a project's own scope class.
void own_scope(Net &model, torch::Tensor x, torch::Tensor y) {
  AutocastScope amp(at::kCUDA, torch::kFloat16);
  torch::mse_loss(model(x), y).backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: backward on a loss computed in float16 without loss scaling
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: float16 autocast scope declared here
}

// A model converted to float16 (what Python's .half() is in LibTorch).
void half_model(Net &model, torch::optim::Adam &opt, torch::Tensor x, torch::Tensor y) {
  model->to(torch::kHalf);
  for (int step = 0; step < 10; ++step) {
    auto pred = model(x.to(torch::kHalf));
    auto loss = torch::mse_loss(pred, y.to(torch::kHalf));
    opt.zero_grad();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: backward on a loss computed in float16 without loss scaling
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the module is converted to float16 here
    opt.step();
  }
}

// torch::autograd::backward on a list of losses.
void autograd_backward(Net &model, torch::Tensor x, torch::Tensor y) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  torch::autograd::backward({loss});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: backward on a loss computed in float16 without loss scaling
  // CHECK-MESSAGES: :[[@LINE-4]]:37: note: float16 autocast scope declared here
}

// ---- must not flag ----------------------------------------------------------

// bfloat16 has float32's range: no scaler needed.
void bfloat16(Net &model, torch::Tensor x, torch::Tensor y) {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  at::autocast::set_enabled(true);
  auto loss = torch::mse_loss(model(x), y);
  at::autocast::set_enabled(false);
  loss.backward();
}

void bfloat16_scope(Net &model, torch::Tensor x, torch::Tensor y) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kBFloat16);
  torch::mse_loss(model(x), y).backward();
}

// CPU autocast computes in bfloat16 by default.
void cpu_default(Net &model, torch::Tensor x, torch::Tensor y) {
  at::autocast::set_cpu_enabled(true);
  auto loss = torch::mse_loss(model(x), y);
  at::autocast::set_cpu_enabled(false);
  loss.backward();
}

// The dtype is chosen at run time: the check cannot know it.
void runtime_dtype(Net &model, torch::Tensor x, torch::Tensor y, const Config &cfg) {
  at::autocast::set_autocast_gpu_dtype(cfg.amp_dtype);
  at::autocast::set_enabled(true);
  auto loss = torch::mse_loss(model(x), y);
  at::autocast::set_enabled(false);
  loss.backward();
}

void runtime_dtype_scope(Net &model, torch::Tensor x, torch::Tensor y, const Config &cfg) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, cfg.amp_dtype);
  torch::mse_loss(model(x), y).backward();
}

// Scaled losses: the runtime's GradScaler, a project's scaler, a helper named
// like scaling, a scale factor.
void grad_scaler(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  libtorch_tidy::amp::GradScaler scaler;
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  scaler.scale(loss).backward();
  scaler.step(opt);
  scaler.update();
}

void manual_scaler(Net &model, ManualGradScaler &scaler, torch::optim::SGD &opt, torch::Tensor x,
                   torch::Tensor y) {
  at::autocast::set_enabled(true);
  auto loss = torch::mse_loss(model(x), y);
  at::autocast::set_enabled(false);
  scaler.scale(loss).backward();
  scaler.step(opt);
}

void autograd_backward_scaled(Net &model, ManualGradScaler &scaler, torch::Tensor x,
                              torch::Tensor y) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  torch::autograd::backward({scaler.scale(loss)});
}

// A trainer whose scaler is a data member, or a lambda's parameter: a function
// that names a scaler object is trusted to scale.
struct AmpTrainer {
  ManualGradScaler scaler_;
  void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
    libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    scaler_.step(opt);
  }
};

void scaler_in_lambda(Net &model, torch::Tensor x, torch::Tensor y) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  loss.backward();
  auto finish = [](ManualGradScaler &s) { s.update(); };
  (void)finish;
}

void scale_helper(Net &model, torch::Tensor x, torch::Tensor y) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  auto scaled = scale_loss(loss);
  scaled.backward();
}

void scale_factor(Net &model, torch::Tensor x, torch::Tensor y, double loss_scale) {
  libtorch_tidy::amp::AutocastGuard autocast(at::kCUDA, at::kHalf);
  auto loss = torch::mse_loss(model(x), y);
  (loss * loss_scale).backward();
}

// The loss is computed after autocast is switched off, from float32 work.
void after_region(Net &model, Net &critic, torch::Tensor x, torch::Tensor y) {
  at::autocast::set_enabled(true);
  model(x);
  at::autocast::set_enabled(false);
  auto loss = torch::mse_loss(critic(x), y);
  loss.backward();
}

// Only the input is float16; the module is not converted here.
void half_input(Net &model, torch::Tensor x, torch::Tensor y) {
  auto loss = torch::mse_loss(model(x.to(torch::kHalf)), y);
  loss.backward();
}
