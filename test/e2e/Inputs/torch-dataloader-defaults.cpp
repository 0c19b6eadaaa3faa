// A trainer and an evaluation built on DataLoaders: the evaluation loader is
// made without options (batches of one, loaded on the main thread).
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct Synthetic : torch::data::datasets::Dataset<Synthetic> {
  torch::Tensor x = torch::randn({64, 8});
  torch::Tensor y = x.sum(1, /*keepdim=*/true);
  torch::data::Example<> get(size_t i) override { return {x[i], y[i]}; }
  torch::optional<size_t> size() const override { return 64; }
};

int main() {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto train_loader = torch::data::make_data_loader(
      Synthetic().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(16).workers(2));
  for (auto &batch : *train_loader) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    opt.step();
  }

  torch::NoGradGuard no_grad;
  auto test_loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      Synthetic().map(torch::data::transforms::Stack<>()));
  double total = 0;
  int batches = 0;
  for (auto &batch : *test_loader) {
    total += torch::mse_loss(model->forward(batch.data), batch.target).item<double>();
    ++batches;
  }
  std::printf("test loss %.4f over %d batches\n", total / batches, batches);
  return 0;
}
