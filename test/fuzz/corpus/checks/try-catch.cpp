#include <torch/torch.h>
#include <stdexcept>
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  torch::Tensor running;
  for (int i = 0; i < 10; ++i) {
    try {
      torch::AutoGradMode mode(false);
      auto loss = model->forward(x).mean();
      if (!loss.defined())
        throw std::runtime_error("no loss");
      loss.backward();
      running += loss;
    } catch (const std::runtime_error &) {
      torch::autograd::GradMode::set_enabled(true);
      continue;
    } catch (...) {
      throw;
    }
    opt.step();
  }
}
