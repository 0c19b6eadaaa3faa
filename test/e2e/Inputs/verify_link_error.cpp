// Parses and has a finding, but does not link: load_weights is never defined.
#include <torch/torch.h>

#include <cstdio>

void load_weights(torch::nn::Linear &model);

double evaluate(torch::nn::Linear &model) {
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 50; ++i)
    total += model->forward(torch::randn({4, 8})).sum();
  return total.item<double>();
}

int main() {
  torch::nn::Linear model(8, 2);
  load_weights(model);
  std::printf("%.3f\n", evaluate(model));
  return 0;
}
