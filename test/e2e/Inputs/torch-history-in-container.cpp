// A regressor trained on synthetic data. The mistake: every batch's loss is
// kept in `batch_losses` for a report, with its autograd graph.
// torch-history-in-container finds it; the log-probabilities of the
// policy-gradient rollout in reinforce_step(), which reach backward(), are
// left alone.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

static void reinforce_step(Net &policy, torch::optim::SGD &opt, torch::Tensor states) {
  std::vector<torch::Tensor> log_probs;
  for (int64_t t = 0; t < states.size(0); ++t)
    log_probs.push_back(torch::log_softmax(policy->forward(states[t]), 0)[0]);
  auto loss = -torch::stack(log_probs).sum();
  opt.zero_grad();
  loss.backward();
  opt.step();
}

int main() {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.01));
  auto data = torch::randn({64, 8});
  auto target = torch::randn({64, 1});
  std::vector<torch::Tensor> batch_losses;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int64_t i = 0; i < 64; i += 16) {
      auto loss = torch::mse_loss(model->forward(data.narrow(0, i, 16)), target.narrow(0, i, 16));
      opt.zero_grad();
      loss.backward();
      opt.step();
      batch_losses.push_back(loss);
    }
    reinforce_step(model, opt, data.narrow(0, 0, 4));
  }
  std::printf("batches %zu: last loss %.4f keeps graph %d\n", batch_losses.size(),
              batch_losses.back().item<double>(),
              static_cast<int>(batch_losses.back().requires_grad()));
  return 0;
}
