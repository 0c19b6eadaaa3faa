#include <torch/torch.h>
template <typename... Ts> void backward_all(Ts &...ts) { (ts.backward(), ...); }
template <typename F, typename... Args> auto call(F f, Args &&...args) { return f(args...); }
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 4; ++i) {
    auto a = model->forward(x).sum();
    auto b = call([&](torch::Tensor t) { return model->forward(t).mean(); }, x);
    backward_all(a, b);
    opt.step();
  }
}
