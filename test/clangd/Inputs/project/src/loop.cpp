// The training loop calls a helper defined in steps.cpp: only the linked
// summaries say it trains (torch-missing-zero-grad).
#include "model.h"

void fit(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int epoch = 0; epoch < 10; ++epoch)
    train_step(model, opt, x);
}
