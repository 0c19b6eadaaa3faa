#include <torch/torch.h>
float accuracy(const torch::Tensor &out, const torch::Tensor &y);
void train(torch::nn::Linear &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto out = model(x);
    auto loss = torch::mse_loss(out, y);
    loss.backward();
    opt.step();
    float acc = accuracy(out, y);
    (void)acc;
  }
}
