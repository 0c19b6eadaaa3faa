#include <torch/torch.h>
template <typename Derived> struct Trainer {
  void run(torch::Tensor x) {
    for (int i = 0; i < 10; ++i)
      static_cast<Derived *>(this)->step(x);
  }
};
struct MyTrainer : Trainer<MyTrainer> {
  torch::nn::Linear model{nullptr};
  torch::optim::SGD *opt;
  torch::Tensor total;
  void step(torch::Tensor x) {
    auto loss = model->forward(x).sum();
    loss.backward();
    opt->step();
    total += loss;
  }
};
