// A small regression model trained on synthetic data, printing the mean loss
// of each epoch. The mistake: `running_loss += loss` adds the loss tensor
// itself, so running_loss's autograd graph grows by one batch's graph per
// iteration (backward() freed their buffers, not their nodes) until the epoch
// ends. torch-accumulated-history finds it; the fix is `loss.detach()`.
// LIBTORCH_TIDY_ITERATION marks the training loop's iterations for the
// runtime companion (memory per iteration; see docs/runtime.md).
#include <libtorch_tidy/probe.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

struct RegressorImpl : torch::nn::Module {
  RegressorImpl()
      : hidden(register_module("hidden", torch::nn::Linear(16, 64))),
        out(register_module("out", torch::nn::Linear(64, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return out(torch::tanh(hidden(x))); }
  torch::nn::Linear hidden, out;
};
TORCH_MODULE(Regressor);

int main(int argc, char **argv) {
  torch::manual_seed(0);
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 3;
  const int batches = 200;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto true_weight = torch::randn({16, 1}, device);
  Regressor model;
  model->to(device);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-2));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    torch::Tensor running_loss = torch::zeros({}, device);
    for (int i = 0; i < batches; ++i) {
      auto x = torch::randn({32, 16}, device);
      auto y = torch::mm(x, true_weight) + 0.1 * torch::randn({32, 1}, device);
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(x), y);
      loss.backward();
      optimizer.step();
      running_loss += loss;
      LIBTORCH_TIDY_ITERATION(running_loss);
    }
    std::printf("epoch %d: mean loss %.4f\n", epoch, running_loss.item<double>() / batches);
  }
  return 0;
}
