// Reaches LibTorch through trainer.h -> model.h only.
#include "trainer.h"

void train(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
  }
}

torch::Tensor test_batch(Net &model, torch::Tensor x) {
  return model(x); // NOLINT(torch-eval-without-no-grad): kept on purpose
}
