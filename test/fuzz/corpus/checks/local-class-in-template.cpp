#include <torch/torch.h>
template <typename M> void evaluate(M model, torch::Tensor x) {
  struct Runner {
    M m;
    torch::Tensor run(torch::Tensor in) { return m->forward(in); }
  };
  model->eval();
  Runner r{model};
  for (int i = 0; i < 3; ++i)
    r.run(x);
}
template void evaluate(torch::nn::Linear, torch::Tensor);
