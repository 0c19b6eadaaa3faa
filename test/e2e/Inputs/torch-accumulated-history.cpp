// A classifier trained on synthetic data. The mistake: the epoch's loss is
// summed as a tensor, so every batch's autograd graph stays reachable from
// `epoch_loss` until the epoch ends. torch-accumulated-history finds it; the
// accuracy count (argmax/eq: no gradient) and the total back-propagated in
// multi_task_step() are left alone.
#include <torch/torch.h>

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 3))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

// Two heads' losses summed on purpose, then back-propagated: not flagged.
static void multi_task_step(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  torch::Tensor total = torch::zeros({});
  for (int head = 0; head < 2; ++head)
    total += torch::nn::functional::cross_entropy(model->forward(x), y);
  opt.zero_grad();
  total.backward();
  opt.step();
}

int main() {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto data = torch::randn({64, 8});
  auto target = torch::randint(3, {64});
  for (int epoch = 0; epoch < 2; ++epoch) {
    torch::Tensor epoch_loss = torch::zeros({});
    torch::Tensor correct = torch::zeros({}, torch::kLong);
    for (int64_t i = 0; i < 64; i += 16) {
      auto x = data.narrow(0, i, 16), y = target.narrow(0, i, 16);
      auto output = model->forward(x);
      auto loss = torch::nn::functional::cross_entropy(output, y);
      opt.zero_grad();
      loss.backward();
      opt.step();
      epoch_loss += loss;
      correct += output.argmax(1).eq(y).sum();
    }
    multi_task_step(model, opt, data.narrow(0, 0, 16), target.narrow(0, 0, 16));
    std::printf("epoch %d: loss %.4f correct %ld keeps graph %d\n", epoch,
                epoch_loss.item<double>() / 4, static_cast<long>(correct.item<int64_t>()),
                static_cast<int>(epoch_loss.requires_grad()));
  }
  return 0;
}
