// Recall round 3 reproducer (misses), from jamesbut/NeuroEvo (src/util/models/supervised_model.cpp 93-144,
// SupervisedFeedForward::train; src/util/models/unsupervised_models/autoencoder.cpp 76-127, AutoEncoder::train,
// the same shape), reduced.
// Every test_every epochs the training function runs the model on the whole test set with autograd on and
// keeps the result in 'avg_test_loss', a local declared before the epoch loop: the graph and activations of
// the whole test-set forward stay alive until the next test (test_every epochs later); only its value is read
// (item() for the printed table). No eval() precedes it and the function is named 'train', so none of the
// page's rules for evaluation code applies, and rule 4 (inference by what it does) excludes functions that
// train.
// Expected: a [torch-eval-without-no-grad] warning at line 39 (the test forward); at bb02db5: none. Fixed: rule 5
// (a forward pass in training code whose result is only read, findUnused).
#include <torch/torch.h>
#include <iostream>
#include <utility>
#include <vector>

struct Model {
  torch::nn::Linear net{nullptr};
  torch::Tensor loss_function(const torch::Tensor &output, const torch::Tensor &labels) const {
    return torch::mse_loss(output, labels);
  }
  bool train(unsigned num_epochs, const std::vector<std::pair<torch::Tensor, torch::Tensor>> &batches,
             const torch::Tensor &test_data, const torch::Tensor &test_labels, unsigned test_every,
             torch::optim::Optimizer &optimizer);
};

bool Model::train(unsigned num_epochs, const std::vector<std::pair<torch::Tensor, torch::Tensor>> &batches,
                  const torch::Tensor &test_data, const torch::Tensor &test_labels, unsigned test_every,
                  torch::optim::Optimizer &optimizer) {
  torch::Tensor avg_test_loss = torch::zeros({1});
  for (unsigned epoch_num = 0; epoch_num < num_epochs; epoch_num++) {
    for (const auto &batch : batches) {
      optimizer.zero_grad();
      const torch::Tensor output = net->forward(batch.first);
      torch::Tensor loss = loss_function(output, batch.second);
      loss.backward();
      optimizer.step();
    }
    if ((epoch_num + 1) % test_every == 0) {
      const torch::Tensor test_output = net->forward(test_data);
      const torch::Tensor test_loss = loss_function(test_output, test_labels);
      avg_test_loss = test_loss / test_data.size(0);
    }
    std::cout << avg_test_loss.item<double>() << std::endl;
  }
  return true;
}
