// A small regression trainer with a retained graph it never uses again, and a
// multi-task step whose retained graph is needed (the check must leave it).
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, 16))),
        head_a(register_module("head_a", torch::nn::Linear(16, 1))),
        head_b(register_module("head_b", torch::nn::Linear(16, 1))) {}
  torch::Tensor trunk(torch::Tensor x) { return torch::relu(fc1(x)); }
  torch::Tensor forward(torch::Tensor x) { return head_a(trunk(x)); }
  torch::nn::Linear fc1, head_a, head_b;
};
TORCH_MODULE(Net);

struct Synthetic : torch::data::datasets::Dataset<Synthetic> {
  torch::Tensor x = torch::randn({256, 8});
  torch::Tensor y = x.sum(1, /*keepdim=*/true);
  torch::data::Example<> get(size_t i) override { return {x[i], y[i]}; }
  torch::optional<size_t> size() const override { return 256; }
};

template <typename Loader>
static double train_epoch(Net &model, torch::optim::SGD &opt, Loader &loader) {
  double total = 0;
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
    loss.backward({}, /*retain_graph=*/true);
    opt.step();
    total += loss.item().toDouble();
  }
  return total;
}

template <typename Loader>
static void multi_task_epoch(Net &model, torch::optim::SGD &opt, Loader &loader) {
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto features = model->trunk(batch.data);
    auto loss_a = torch::mse_loss(model->head_a(features), batch.target);
    auto loss_b = torch::mse_loss(model->head_b(features), batch.target);
    loss_a.backward({}, /*retain_graph=*/true); // needed: loss_b goes through the trunk again
    loss_b.backward();
    opt.step();
  }
}

int main() {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01));
  auto loader = torch::data::make_data_loader(Synthetic().map(torch::data::transforms::Stack<>()),
                                              torch::data::DataLoaderOptions().batch_size(32));
  for (int epoch = 0; epoch < 2; ++epoch) {
    double loss = train_epoch(model, opt, loader);
    multi_task_epoch(model, opt, loader);
    std::printf("epoch %d: loss %.4f\n", epoch, loss);
  }
  return 0;
}
