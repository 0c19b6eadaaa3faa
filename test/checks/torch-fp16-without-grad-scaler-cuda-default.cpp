// CUDA autocast switched on without a dtype computes in float16 (LibTorch's
// default) unless something in the translation unit sets another CUDA dtype,
// as a program that sets bfloat16 once in main does.
// RUN: %check_torch_tidy %s torch-fp16-without-grad-scaler %t
// RUN: %check_torch_tidy -check-suffix=ELSEWHERE %s torch-fp16-without-grad-scaler %t -- -DSETS_BF16_IN_MAIN
#include <torch/torch.h>
#include <ATen/autocast_mode.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  opt.zero_grad();
  at::autocast::set_enabled(true);
  auto out = model(x);
  auto loss = torch::mse_loss(out, y);
  at::autocast::set_enabled(false);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: backward on a loss computed in float16 without loss scaling: gradients smaller than float16 can hold (about 6e-8) become zero and the weights they belong to stop learning [torch-fp16-without-grad-scaler]
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: autocast computes in float16 from here (the CUDA default: nothing in this translation unit sets another dtype); scale the loss with a gradient scaler before backward ('libtorch_tidy::amp::GradScaler': scaler.scale(loss).backward(), scaler.step(optimizer), scaler.update())
  opt.step();
}

void train_step_half(Net &model, torch::Tensor x, torch::Tensor y) {
  at::autocast::set_autocast_gpu_dtype(at::kHalf);
  at::autocast::set_enabled(true);
  auto loss = torch::mse_loss(model(x), y);
  at::autocast::set_enabled(false);
  loss.backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: backward on a loss computed in float16 without loss scaling
  // CHECK-MESSAGES-ELSEWHERE: :[[@LINE-2]]:8: warning: backward on a loss computed in float16 without loss scaling
}

#ifdef SETS_BF16_IN_MAIN
int main() {
  at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
  return 0;
}
#endif
