#include <torch/torch.h>
#define REPEAT(n) for (int i_ = 0; i_ < (n); ++i_)
#define STEP(m, o, x) do { auto l_ = (m)->forward(x).sum(); l_.backward(); (o).step(); } while (0)
#define EVAL(m) (m)->eval()
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  REPEAT(10) STEP(model, opt, x);
  EVAL(model);
  REPEAT(3) model->forward(x);
}
