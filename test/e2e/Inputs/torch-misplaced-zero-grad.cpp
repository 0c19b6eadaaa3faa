// A classifier whose training loop zeroes the gradients between backward()
// and step(): the optimizer only ever sees zero gradients and nothing learns.
#include <torch/torch.h>

#include <cstdio>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc1(register_module("fc1", torch::nn::Linear(16, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Classifier);

int main() {
  torch::manual_seed(0);
  auto x = torch::randn({128, 16});
  auto labels = x.narrow(1, 0, 4).argmax(1);
  Classifier model;
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
  auto before = model->fc1->weight.clone();
  for (int epoch = 0; epoch < 5; ++epoch) {
    for (int64_t start = 0; start < 128; start += 32) {
      auto logits = model->forward(x.narrow(0, start, 32));
      auto loss = torch::nll_loss(torch::log_softmax(logits, 1), labels.narrow(0, start, 32));
      loss.backward();
      optimizer.zero_grad();
      optimizer.step();
    }
  }
  bool changed = !torch::equal(before, model->fc1->weight);
  std::printf("weights changed: %s\n", changed ? "yes" : "no");
  return 0;
}
