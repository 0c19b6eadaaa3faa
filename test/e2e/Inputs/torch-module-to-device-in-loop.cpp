// A trainer that moves its model to the device on every step, next to the
// moves that belong in a loop: the batches, and each model of an ensemble.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct Synthetic : torch::data::datasets::Dataset<Synthetic> {
  torch::Tensor x = torch::randn({128, 8});
  torch::Tensor y = x.sum(1, /*keepdim=*/true);
  torch::data::Example<> get(size_t i) override { return {x[i], y[i]}; }
  torch::optional<size_t> size() const override { return 128; }
};

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto loader = torch::data::make_data_loader(Synthetic().map(torch::data::transforms::Stack<>()),
                                              torch::data::DataLoaderOptions().batch_size(16));
  double last = 0;
  for (auto &batch : *loader) {
    model->to(device);
    auto data = batch.data.to(device);
    auto target = batch.target.to(device);
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(data), target);
    loss.backward();
    opt.step();
    last = loss.item<double>();
  }

  std::vector<Net> ensemble(3);
  for (auto &member : ensemble)
    member->to(device);
  std::printf("last loss %.4f, ensemble of %zu\n", last, ensemble.size());
  return 0;
}
