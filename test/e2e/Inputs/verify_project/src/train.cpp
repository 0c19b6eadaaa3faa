// The training loop and the validation after each epoch. The mistake is in
// evaluate(): its forward passes run with autograd on and it sums the loss
// tensors, so every batch's graph and activations stay alive until it returns.
#include "train.h"
#include "model.h"

#include <cstdio>

static double evaluate(Net &model, const torch::Tensor &data, const torch::Tensor &target) {
  model->eval();
  torch::Tensor total = torch::zeros({});
  for (int64_t i = 0; i < data.size(0); i += 16) {
    auto logits = model->forward(data.narrow(0, i, 16));
    total += torch::nn::functional::cross_entropy(logits, target.narrow(0, i, 16));
  }
  return total.item<double>() / double(data.size(0) / 16);
}

double train(const TrainOptions &options) {
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto data = torch::randn({256, 32}), valid = torch::randn({1024, 32});
  auto target = data.narrow(1, 0, 4).argmax(1), valid_target = valid.narrow(1, 0, 4).argmax(1);
  double loss = 0;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    model->train();
    for (int64_t i = 0; i < data.size(0); i += 16) {
      opt.zero_grad();
      auto batch_loss = torch::nn::functional::cross_entropy(model->forward(data.narrow(0, i, 16)),
                                                             target.narrow(0, i, 16));
      batch_loss.backward();
      opt.step();
    }
    loss = evaluate(model, valid, valid_target);
    std::printf("%s epoch %d: validation loss %.4f\n", options.data_dir.c_str(), epoch, loss);
  }
  return loss;
}
