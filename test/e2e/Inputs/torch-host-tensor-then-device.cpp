// Tensors made on the CPU by LibTorch's factories and moved to a device chosen
// at run time (the CPU here when there is no GPU). With the check's fix-its
// the device goes into the factories' options: the fixed program builds
// against real LibTorch and prints the same results.
#include <torch/torch.h>

#include <cstdio>

struct Sampler {
  torch::Device device_;
  torch::Tensor noise(int64_t n) const { return torch::randn({n}).to(device_); }
};

// Called only with a GPU: built, not run, here.
torch::Tensor on_gpu(int64_t n) {
  return torch::zeros({n}).cuda() + torch::ones({n}).to(torch::Device(torch::kCUDA, 0));
}

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  double total = 0;
  for (int step = 0; step < 3; ++step) {
    auto z = torch::zeros({4, 4}).to(device);
    auto o = torch::ones({4, 4}).to(device);
    auto f = torch::full({2, 3}, 1.5).to(device);
    auto r = torch::arange(0, 10).to(device);
    auto l = torch::linspace(0.0, 1.0, 5).to(device);
    auto e = torch::eye(3).to(device);
    auto m = torch::empty({8}).to(device, /*non_blocking=*/true); // warned, not fixed
    auto i = torch::randint(10, {4}).to(device);                   // warned, not fixed: kLong
    m.fill_(2);
    total += (z.sum() + o.sum() + f.sum() + r.sum() + l.sum() + e.sum() + m.sum()).item<double>();
    if (step == 0)
      std::printf("dtypes %s %s %s\n", c10::toString(z.scalar_type()), c10::toString(r.scalar_type()),
                  c10::toString(i.scalar_type()));
  }
  torch::manual_seed(0);
  Sampler s{device};
  double noise = s.noise(16).sum().item<double>();
  if (torch::cuda::is_available())
    total += on_gpu(2).sum().item<double>();
  std::printf("total %.2f noise %.4f\n", total, noise);
  return 0;
}
