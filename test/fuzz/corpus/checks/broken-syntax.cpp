#include <torch/torch.h>
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i {
    auto loss = model->forward(x).sum(
    loss.backward();
    opt.step()
  }
  model->eval();
  model->forward(undeclared);
template <typename T> struct Half {
