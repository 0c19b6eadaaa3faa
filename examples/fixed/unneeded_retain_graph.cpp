// A multilayer perceptron trained on synthetic data; the last loss is kept for
// a report after the loop. The mistake: backward(..., retain_graph=true) keeps
// every saved activation of the graph alive for as long as `loss` lives, that
// is across the next iteration's forward pass: the memory held between
// iterations (and the peak) carries one whole extra graph. Nothing calls
// backward on that graph again. torch-unneeded-retain-graph finds it; the fix
// drops the argument.
// LIBTORCH_TIDY_ITERATION marks the training loop's iterations for the
// runtime companion (memory per iteration; see docs/runtime.md).
#include <libtorch_tidy/probe.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(64, 256))),
        fc2(register_module("fc2", torch::nn::Linear(256, 256))),
        fc3(register_module("fc3", torch::nn::Linear(256, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::gelu(fc1(x));
    x = torch::gelu(fc2(x));
    return fc3(x);
  }
  torch::nn::Linear fc1, fc2, fc3;
};
TORCH_MODULE(Mlp);

int main(int argc, char **argv) {
  torch::manual_seed(0);
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  Mlp model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  torch::Tensor loss;
  for (int step = 0; step < steps; ++step) {
    auto x = torch::randn({128, 64}, device);
    auto y = x.narrow(1, 0, 10).argmax(1);
    optimizer.zero_grad();
    loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    loss.backward();
    optimizer.step();
    LIBTORCH_TIDY_ITERATION(loss);
  }
  std::printf("final loss %.4f\n", loss.item<double>());
  return 0;
}
