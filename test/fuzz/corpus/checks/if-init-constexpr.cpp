// c++20
#include <torch/torch.h>
template <bool Train> void step(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  if constexpr (Train) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt.step();
  } else {
    model->eval();
    if (auto y = model->forward(x); y.defined())
      y.sum().item<float>();
  }
}
void both(torch::nn::Linear m, torch::optim::SGD &o, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) { step<true>(m, o, x); step<false>(m, o, x); }
}
