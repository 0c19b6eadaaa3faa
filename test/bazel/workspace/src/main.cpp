#include "model.h"

#include <cstdio>

int main() {
  Classifier model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<torch::Tensor> batches = {torch::randn({4, 8})};
  for (int epoch = 0; epoch < APP_EPOCHS; ++epoch) {
    optimizer.zero_grad();
    model->forward(batches[0]).sum().backward();
    optimizer.step();
  }
  std::printf("%f\n", evaluate(model, batches));
  return 0;
}
