#include <torch/torch.h>
float accuracy(const torch::Tensor &out, const torch::Tensor &y) {
  return out.argmax(1).eq(y).sum().item<float>() / y.size(0);
}
