// A small regression trainer with a retained graph it never uses again, and a
// multi-task step whose retained graph is needed (the check must leave it); a
// GAN step whose discriminator loss reads the fake batch through detach() (the
// generator's backward pass never reaches its graph) and a manual SGD step
// through torch::autograd::grad, both retaining for nothing.
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

static void gan_steps(torch::nn::Linear &gen, torch::nn::Linear &disc, torch::optim::SGD &g_opt,
                      torch::optim::SGD &d_opt) {
  for (int step = 0; step < 4; ++step) {
    auto real = torch::randn({16, 8});
    auto fake = gen(torch::randn({16, 8}));
    d_opt.zero_grad();
    auto d_loss = disc(fake.detach()).mean() - disc(real).mean();
    d_loss.backward({}, /*retain_graph=*/true);
    d_opt.step();
    g_opt.zero_grad();
    auto g_loss = -disc(fake).mean();
    g_loss.backward();
    g_opt.step();
  }
}

static void sgd_through_grad(torch::nn::Linear &lin) {
  for (int step = 0; step < 3; ++step) {
    auto loss = lin(torch::randn({4, 8})).pow(2).mean();
    auto grads = torch::autograd::grad({loss}, lin->parameters(), {}, /*retain_graph=*/true);
    torch::NoGradGuard no_grad;
    auto params = lin->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      params[i].sub_(0.01 * grads[i]);
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
  torch::nn::Linear gen(8, 8), disc(8, 1);
  torch::optim::SGD g_opt(gen->parameters(), torch::optim::SGDOptions(0.01));
  torch::optim::SGD d_opt(disc->parameters(), torch::optim::SGDOptions(0.01));
  gan_steps(gen, disc, g_opt, d_opt);
  sgd_through_grad(gen);
  std::printf("gan and grad steps done\n");
  return 0;
}
