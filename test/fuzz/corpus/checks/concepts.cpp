// c++20
#include <torch/torch.h>
template <typename M>
concept Forwardable = requires(M m, torch::Tensor t) { m->forward(t); };
template <Forwardable M> torch::Tensor infer(M model, torch::Tensor x) {
  model->eval();
  return model->forward(x);
}
template <typename M> requires Forwardable<M>
void train(M model, torch::optim::Optimizer &opt, torch::Tensor x) {
  for (int i = 0; i < 5; ++i) {
    auto loss = model->forward(x).mean();
    loss.backward();
    opt.step();
  }
}
void use(torch::nn::Linear l, torch::optim::SGD &o, torch::Tensor x) { infer(l, x); train(l, o, x); }
