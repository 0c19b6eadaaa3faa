#include <torch/torch.h>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

double evaluate(Net &model, const std::vector<torch::Tensor> &xs) {
  double sum = 0;
  for (const auto &x : xs)
    sum += model(x).sum().item<double>();
  return sum;
}

void train(Net &model, torch::optim::SGD &opt, const std::vector<torch::Tensor> &xs) {
  torch::Tensor total = torch::zeros({1});
  for (const auto &x : xs) {
    opt.zero_grad();
    auto loss = model(x).sum();
    total += loss;
    loss.backward();
    opt.step();
  }
}
