#include <torch/torch.h>
void train(torch::nn::Linear model, torch::optim::Adam &opt, torch::Tensor x) {
  torch::Tensor total = torch::zeros({1});
  auto outer = [&](int epochs) {
    for (int e = 0; e < epochs; ++e) {
      auto inner = [&](auto self, int depth) -> void {
        if (depth == 0) {
          auto loss = model->forward(x).sum();
          loss.backward();
          opt.step();
          total += loss;
          return;
        }
        [&] { [&] { self(self, depth - 1); }(); }();
      };
      inner(inner, 3);
    }
  };
  outer(2);
}
