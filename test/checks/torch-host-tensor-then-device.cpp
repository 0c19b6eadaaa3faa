// RUN: %check_torch_tidy %s torch-host-tensor-then-device %t
#include <torch/torch.h>
#include <cstdint>
#include <vector>

// --- Positives ----------------------------------------------------------------

torch::Tensor randn_to_cuda() {
  return torch::randn({64, 128}).to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor created on the CPU and then copied to the device: an extra host allocation and a host-to-device copy each time; create it on the device (pass the device in the factory's options) [torch-host-tensor-then-device]
}
// CHECK-FIXES: {{^}}  return torch::randn({64, 128}, torch::kCUDA);{{$}}

torch::Tensor zeros_cuda(int64_t n) {
  return torch::zeros({n}).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor created on the CPU and then copied to the device
}
// CHECK-FIXES: {{^}}  return torch::zeros({n}, torch::kCUDA);{{$}}

torch::Tensor ones_to_device_parameter(std::vector<int64_t> sizes, const torch::Device &device) {
  return torch::ones(sizes).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor created on the CPU and then copied to the device
}
// CHECK-FIXES: {{^}}  return torch::ones(sizes, device);{{$}}

void device_variable() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto a = torch::rand({3, 3}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU and then copied to the device
  // CHECK-FIXES: {{^}}  auto a = torch::rand({3, 3}, device);{{$}}
  auto b = torch::full({2, 2}, 1.5).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto b = torch::full({2, 2}, 1.5, device);{{$}}
  auto c = torch::arange(0, 10).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto c = torch::arange(0, 10, device);{{$}}
  auto d = torch::linspace(0.0, 1.0, 5).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto d = torch::linspace(0.0, 1.0, 5, device);{{$}}
  auto e = torch::eye(4).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto e = torch::eye(4, device);{{$}}
  auto f = (torch::empty({8})).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto f = (torch::empty({8}, device));{{$}}
  auto g = at::zeros({2}).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto g = at::zeros({2}, at::kCUDA);{{$}}
}

torch::Tensor constructed_device() {
  return torch::randn({4}).to(torch::Device(torch::kCUDA, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor created on the CPU and then copied to the device
}
// CHECK-FIXES: {{^}}  return torch::randn({4}, torch::Device(torch::kCUDA, 1));{{$}}

struct Trainer {
  torch::Device device_{torch::kCUDA};
  torch::Tensor noise() const { return torch::randn({16}).to(device_); }
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  torch::Tensor noise() const { return torch::randn({16}, device_); }{{$}}
};

void inside_a_loop(torch::Device device) {
  for (int step = 0; step < 100; ++step) {
    auto noise = torch::randn({64, 128}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: tensor created on the CPU
    // CHECK-FIXES: {{^}}    auto noise = torch::randn({64, 128}, device);{{$}}
  }
}

// Warned, no fix-it: the options or the move say more than the device.
void no_fix_it(torch::Device device, std::vector<torch::Device> &devices) {
  auto a = torch::empty({8}).to(device, /*non_blocking=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto a = torch::empty({8}).to(device, /*non_blocking=*/true);{{$}}
  auto b = torch::zeros({8}, torch::kLong).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto b = torch::zeros({8}, torch::kLong).to(device);{{$}}
  auto c = torch::ones({8}, torch::TensorOptions().dtype(torch::kDouble)).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto c = torch::ones({8}, torch::TensorOptions().dtype(torch::kDouble)).to(device);{{$}}
  auto d = torch::randn({8}).to(device, torch::kHalf);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto d = torch::randn({8}).to(device, torch::kHalf);{{$}}
  // randint and randperm default to kLong: the device alone as options would make floats.
  auto e = torch::randint(10, {8}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto e = torch::randint(10, {8}).to(device);{{$}}
  auto f = torch::randperm(8).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto f = torch::randperm(8).cuda();{{$}}
  // logspace's base comes between the steps and the options.
  auto g = torch::logspace(0, 2, 3).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto g = torch::logspace(0, 2, 3).to(device);{{$}}
  // A device expression with a call in it does not move.
  auto h = torch::zeros({8}).to(devices.back());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto h = torch::zeros({8}).to(devices.back());{{$}}
}

// A YOLO loss's options made on every forward pass: a host tensor converted on
// the host, then copied. Warned, no fix-it (the dtype would move too).
void through_a_dtype(torch::Device device) {
  auto bool_mask = torch::ones(1).to(torch::kBool).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto bool_mask = torch::ones(1).to(torch::kBool).to(device);{{$}}
  auto x = (torch::zeros({8}).to(torch::kHalf)).cuda();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: tensor created on the CPU
  // CHECK-FIXES: {{^}}  auto x = (torch::zeros({8}).to(torch::kHalf)).cuda();{{$}}
}

#define ON_DEVICE(t, dev) (t).to(dev)
torch::Tensor in_a_macro(torch::Device device) {
  return ON_DEVICE(torch::zeros({4}), device);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: tensor created on the CPU
}
// CHECK-FIXES: {{^}}  return ON_DEVICE(torch::zeros({4}), device);{{$}}

template <typename T> torch::Tensor in_a_template(torch::Device device) {
  return torch::zeros({4}).to(device) * T(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor created on the CPU
}
// CHECK-FIXES: {{^}}  return torch::zeros({4}, device) * T(2);{{$}}
torch::Tensor instantiate(torch::Device device) {
  return in_a_template<float>(device) + in_a_template<double>(device);
}

// A factory handed to a helper whose whole body moves its parameter: the same
// host allocation and copy, one call away. No fix-it (the helper stays).
template <typename T> T ToDevice(const T &src, torch::Device device) { return src.to(device); }
torch::Tensor to_cpu(const torch::Tensor &t) { return t.to(torch::kCPU); }
torch::Tensor scaled(const torch::Tensor &t, torch::Device device) {
  auto m = t.to(device);
  return m * 2;
}
void through_a_helper(torch::Device device, torch::TensorOptions options) {
  auto h = ToDevice(torch::zeros({1, 64}), device);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor created on the CPU and then copied to the device
  // CHECK-MESSAGES: :[[@LINE-2]]:12: note: 'ToDevice' moves it to the device
  auto a = to_cpu(torch::zeros({1, 64}));
  auto b = scaled(torch::zeros({1, 64}), device);
  auto c = ToDevice(torch::zeros({1, 64}, options), device);
  auto d = ToDevice(torch::zeros({1, 64}, torch::TensorOptions().device(device)), device);
}
// CHECK-FIXES: {{^}}  auto h = ToDevice(torch::zeros({1, 64}), device);{{$}}

// --- Negatives ----------------------------------------------------------------

torch::Tensor zeros(std::vector<int64_t> sizes); // the user's own factory

void negatives(torch::Device device, torch::Tensor other, torch::TensorOptions options, float *buffer) {
  auto a = torch::zeros({8}).to(torch::kFloat);             // a dtype
  auto b = torch::zeros({8}).to(other);                     // like another tensor
  auto c = torch::zeros({8}).to(options);                   // options of unknown contents
  auto d = torch::tensor({1.f, 2.f}).to(device);            // host values anyway
  auto e = torch::from_blob(buffer, {8}).to(device);        // host memory
  auto f = torch::zeros({8});                               // created, moved later: out of scope
  f = f.to(device);
  auto g = zeros({8}).to(device);                           // not LibTorch's
  auto h = torch::zeros({8}).to(torch::kCPU);               // the CPU: no copy
  auto i = torch::zeros({8}).to(torch::Device(torch::kCPU));
  auto j = torch::zeros({8}, device).to(device);            // already on the device
  auto k = torch::zeros({8}, torch::TensorOptions().device(device)).to(torch::kCUDA);
  auto l = torch::zeros({8}, options).to(device);           // options may hold a device
  auto m = torch::zeros({8}, torch::TensorOptions().pinned_memory(true)).to(device, true);
  auto n = torch::zeros_like(other).to(device);             // the device of `other`
  auto o = torch::zeros({8}).to(torch::TensorOptions(device)); // options the user built
  auto p = torch::zeros({8}).cpu();
  auto q = other.cuda();
  auto r = torch::zeros({8}).to(torch::kFloat).to(torch::kCPU);  // converted, stays on the CPU
  auto s = torch::zeros({8}).to(torch::kFloat, true).to(device); // more than a dtype between: not followed
  auto t = other.to(torch::kFloat).to(device);                   // not a factory
}
