// Gradient accumulation over 4 micro-batches whose loss is not divided by the
// accumulation period: every step is 4 times too large. The program compares
// the accumulated training with the same training on full batches.
#include <torch/torch.h>

#include <cstdio>

struct RegressorImpl : torch::nn::Module {
  RegressorImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Regressor);

static void train_accumulated(Regressor &model, const torch::Tensor &x, const torch::Tensor &y,
                              int accumulation_steps) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05));
  const int64_t micro = 16;
  optimizer.zero_grad();
  for (int64_t i = 0; i * micro < x.size(0); ++i) {
    auto loss = torch::mse_loss(model->forward(x.narrow(0, i * micro, micro)),
                                y.narrow(0, i * micro, micro));
    loss.backward();
    if ((i + 1) % accumulation_steps == 0) {
      optimizer.step();
      optimizer.zero_grad();
    }
  }
}

static void train_full_batches(Regressor &model, const torch::Tensor &x, const torch::Tensor &y,
                               int64_t batch) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05));
  for (int64_t start = 0; start < x.size(0); start += batch) {
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x.narrow(0, start, batch)), y.narrow(0, start, batch))
        .backward();
    optimizer.step();
  }
}

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({256, 8});
  auto y = x.matmul(torch::randn({8, 1}));
  Regressor accumulated, reference;
  {
    torch::NoGradGuard no_grad;
    auto src = accumulated->parameters(), dst = reference->parameters();
    for (size_t i = 0; i < src.size(); ++i)
      dst[i].copy_(src[i]);
  }
  train_accumulated(accumulated, x, y, 4);
  train_full_batches(reference, x, y, 64);
  double diff = 0;
  auto a = accumulated->parameters(), b = reference->parameters();
  for (size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, (a[i] - b[i]).abs().max().item<double>());
  std::printf("largest parameter difference %.2e: %s\n", diff,
              diff < 1e-5 ? "matches full-batch training" : "differs from full-batch training");
  return 0;
}
