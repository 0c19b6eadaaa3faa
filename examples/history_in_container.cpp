// A small classifier trained on synthetic data that keeps every batch's loss
// for a loss curve printed at the end. The mistake: the loss tensors pushed
// into `loss_history` keep their autograd graphs (one per batch) alive for the
// whole training. torch-history-in-container finds it; the fix is
// `loss.detach()`.
// LIBTORCH_TIDY_ITERATION marks the training loop's iterations for the
// runtime companion (memory per iteration; see docs/runtime.md).
#include <libtorch_tidy/probe.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc1(register_module("fc1", torch::nn::Linear(20, 64))),
        fc2(register_module("fc2", torch::nn::Linear(64, 3))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Classifier);

int main(int argc, char **argv) {
  torch::manual_seed(0);
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 3;
  const int batches = 200;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  Classifier model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<torch::Tensor> loss_history;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (int i = 0; i < batches; ++i) {
      auto x = torch::randn({64, 20}, device);
      auto y = x.narrow(1, 0, 3).argmax(1);
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
      loss.backward();
      optimizer.step();
      loss_history.push_back(loss);
      LIBTORCH_TIDY_ITERATION(loss_history);
    }
  }
  auto curve = torch::stack(loss_history);
  std::printf("loss: first %.4f, last %.4f over %zu batches\n", curve[0].item<double>(),
              curve[-1].item<double>(), loss_history.size());
  return 0;
}
