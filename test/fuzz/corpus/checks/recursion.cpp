#include <torch/torch.h>
torch::Tensor deep(torch::nn::Linear model, torch::Tensor x, int n) {
  if (n == 0)
    return model->forward(x);
  return deep(model, deep(model, x, n - 1), n - 1);
}
void a(torch::Tensor &t, int n);
void b(torch::Tensor &t, int n) { t.backward(); a(t, n); }
void a(torch::Tensor &t, int n) { if (n > 0) b(t, n - 1); }
void evaluate(torch::nn::Linear model, torch::Tensor x) {
  model->eval();
  for (int i = 0; i < 4; ++i)
    deep(model, x, 3);
}
