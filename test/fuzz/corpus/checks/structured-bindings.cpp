#include <torch/torch.h>
#include <map>
#include <tuple>
#include <utility>
#include <vector>
std::pair<torch::Tensor, torch::Tensor> batch();
void train(torch::nn::Linear model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> losses;
  for (int i = 0; i < 10; ++i) {
    auto [input, target] = batch();
    auto loss = torch::mse_loss(model->forward(input), target);
    loss.backward();
    opt.step();
    losses.push_back(loss);
  }
  std::map<int, torch::Tensor> m;
  for (auto &[k, v] : m)
    v.backward();
  auto [a, b, c] = std::tuple<int, torch::Tensor, double>{};
  (void)a; (void)c; b.backward();
}
