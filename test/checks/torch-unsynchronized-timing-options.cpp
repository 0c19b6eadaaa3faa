// RUN: %check_torch_tidy %s torch-unsynchronized-timing %t -config="{CheckOptions: {torch-unsynchronized-timing.RuntimeDevice: false}}"
// With RuntimeDevice false only a device the function selects unconditionally
// makes its work CUDA work.
#include <torch/torch.h>
#include <chrono>
#include <iostream>

using Clock = std::chrono::steady_clock;

void unconditional(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  model->forward(x);
  auto t1 = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-6]]:13: note: the device is CUDA
  std::cout << (t1 - t0).count() << "\n";
}
// CHECK-FIXES:      {{^}}  torch::cuda::synchronize();{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto t1 = Clock::now();{{$}}

// A device chosen at run time: not flagged with the option off.
void runtime_choice(torch::nn::Linear model, torch::Tensor x) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  model->to(device);
  auto t0 = Clock::now();
  model->forward(x.to(device));
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
}

void runtime_if(torch::nn::Linear model, torch::Tensor x, bool use_gpu) {
  torch::Device device = torch::kCPU;
  if (use_gpu)
    device = torch::kCUDA;
  model->to(device);
  auto t0 = Clock::now();
  model->forward(x.to(device));
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
}
