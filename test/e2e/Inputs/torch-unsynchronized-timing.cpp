// A forward pass and a training step timed with std::chrono on a device chosen
// at run time (the CPU here when there is no GPU), and a benchmark that runs
// only with a GPU. With the check's fix-its a synchronisation precedes each
// second clock reading: the fixed program builds against real LibTorch, runs
// on the CPU (the synchronisation is guarded where the device is chosen at run
// time: torch::cuda::synchronize() throws without a GPU) and prints the same
// results.
#include <torch/torch.h>

#include <chrono>
#include <cstdio>

// Called only with a GPU: built, not run, here.
double gpu_matmul_ms(torch::nn::Linear model) {
  model->to(torch::kCUDA);
  auto x = torch::randn({1024, 16}, torch::kCUDA);
  auto start = std::chrono::steady_clock::now();
  auto y = model->forward(x);
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(end - start).count();
}

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::nn::Linear model(16, 4);
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  auto x = torch::randn({64, 16}).to(device);
  auto target = torch::randn({64, 4}).to(device);
  double total_ms = 0;
  for (int step = 0; step < 5; ++step) {
    auto t0 = std::chrono::steady_clock::now();
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(x), target);
    loss.backward();
    optimizer.step();
    auto t1 = std::chrono::steady_clock::now();
    total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
  }
  torch::NoGradGuard no_grad;
  auto begin = std::chrono::high_resolution_clock::now();
  auto out = model->forward(x);
  auto elapsed = std::chrono::high_resolution_clock::now() - begin;
  if (torch::cuda::is_available())
    total_ms += gpu_matmul_ms(model);
  std::printf("loss %.4f out %.4f timed %d\n",
              torch::mse_loss(model->forward(x), target).item<double>(),
              out.sum().item<double>(), total_ms >= 0 && elapsed.count() >= 0);
  return 0;
}
