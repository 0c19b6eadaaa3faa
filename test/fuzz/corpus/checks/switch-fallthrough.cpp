#include <torch/torch.h>
void run(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x, int mode) {
  for (int step = 0; step < 10; ++step) {
    switch (mode) {
    case 0:
      model->eval();
      [[fallthrough]];
    case 1: {
      torch::NoGradGuard guard;
      model->forward(x);
      break;
    }
    case 2:
      model->train();
      opt.zero_grad();
    default:
      model->forward(x).sum().backward();
      opt.step();
      continue;
    }
  }
}
