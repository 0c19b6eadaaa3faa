// A clean evaluation loop: nothing for verify to do.
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::nn::Linear model(8, 2);
  torch::NoGradGuard no_grad;
  model->eval();
  double total = 0;
  for (int i = 0; i < 20; ++i)
    total += model(torch::randn({4, 8})).sum().item<double>();
  std::printf("%.3f\n", total);
  return 0;
}
