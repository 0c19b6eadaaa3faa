#include <torch/torch.h>
struct Wrapper {
  torch::Tensor t;
  operator torch::Tensor() const { return t; }
  Wrapper &operator+=(const torch::Tensor &o) { t += o; return *this; }
  torch::Tensor operator()(torch::nn::Linear m) const { return m->forward(t); }
};
void train(torch::nn::Linear model, torch::optim::SGD &opt, Wrapper w) {
  Wrapper acc{torch::zeros({1})};
  for (int i = 0; i < 5; ++i) {
    torch::Tensor loss = w(model).sum();
    loss.backward();
    opt.step();
    acc += loss;
  }
}
