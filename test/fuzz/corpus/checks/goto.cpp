#include <torch/torch.h>
void train(torch::nn::Linear model, torch::optim::SGD &opt, torch::Tensor x) {
  int i = 0;
again:
  {
    auto loss = model->forward(x).sum();
    if (i % 2)
      goto skip;
    opt.zero_grad();
  skip:
    loss.backward();
    opt.step();
  }
  if (++i < 10)
    goto again;
  goto end;
  model->eval();
end:;
}
