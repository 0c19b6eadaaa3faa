// A small classifier trained on synthetic data, then evaluated every epoch.
// The mistake: evaluate() runs its forward passes with autograd on, and sums
// the loss tensors, so every batch's graph (and its activations) stays alive
// until the function returns. torch-eval-without-no-grad finds it.
// LIBTORCH_TIDY_ITERATION marks the evaluation loop's iterations for the
// runtime companion (memory per iteration; see docs/runtime.md).
#include <libtorch_tidy/probe.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc1(register_module("fc1", torch::nn::Linear(32, 128))),
        fc2(register_module("fc2", torch::nn::Linear(128, 128))),
        out(register_module("out", torch::nn::Linear(128, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(fc1(x));
    x = torch::relu(fc2(x));
    return out(x);
  }
  torch::nn::Linear fc1, fc2, out;
};
TORCH_MODULE(Classifier);

struct Batch {
  torch::Tensor data, target;
};

static std::vector<Batch> make_batches(int count, int size, torch::Device device) {
  std::vector<Batch> batches;
  for (int i = 0; i < count; ++i) {
    auto data = torch::randn({size, 32}, device);
    auto target = (data.narrow(1, 0, 4).argmax(1)).to(torch::kLong);
    batches.push_back({data, target});
  }
  return batches;
}

// Mean loss and accuracy over the validation batches.
static std::pair<double, double> evaluate(Classifier &model, const std::vector<Batch> &batches) {
  torch::NoGradGuard no_grad;
  model->eval();
  torch::Tensor total_loss = torch::zeros({}, batches.front().data.device());
  int64_t correct = 0, seen = 0;
  for (const auto &batch : batches) {
    auto logits = model->forward(batch.data);
    total_loss += torch::nn::functional::cross_entropy(logits, batch.target);
    correct += logits.argmax(1).eq(batch.target).sum().item<int64_t>();
    seen += batch.target.size(0);
    LIBTORCH_TIDY_ITERATION(total_loss);
  }
  return {total_loss.item<double>() / batches.size(), double(correct) / double(seen)};
}

int main(int argc, char **argv) {
  torch::manual_seed(0);
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 3;
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto train = make_batches(20, 64, device);
  auto valid = make_batches(64, 128, device);
  Classifier model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model->train();
    for (const auto &batch : train) {
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
    }
    auto [loss, accuracy] = evaluate(model, valid);
    std::printf("epoch %d: validation loss %.4f accuracy %.3f\n", epoch, loss, accuracy);
  }
  return 0;
}
