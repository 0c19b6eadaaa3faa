// Recall round 2 reproducer (miss), from kownse/LibtorchTrade (src/train/model/PPOSampler.cpp 58 and 89,
// PPOSampler::train and ::test, called every epoch; the wrapper is util::tensor::ToDevice of
// src/utils/TensorUtil.h 19-21), reduced. The initial hidden state is made on the host with
// torch::zeros and moved with a one-line template wrapper around '.to(device)': a host allocation and a
// host-to-device copy on every call, where 'torch::zeros(size, device)' makes it on the device.
// Expected: [torch-host-tensor-then-device] warnings at lines 22 and 28 (the factory passed to the
// wrapper that only moves it); today: none ('.to' written directly on the factory is flagged).
#include <torch/torch.h>
#include <vector>

namespace util::tensor {
template <typename T> inline T ToDevice(const T &src, const torch::Device device) { return src.to(device); }
} // namespace util::tensor

struct Sampler {
  long rnn_base = 64;
  size_t hx_size = 1;
  std::vector<torch::Tensor> trade(torch::Tensor &state, std::vector<torch::Tensor> &hs);

  float train(torch::Device device, const torch::Tensor &states) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> hs(hx_size, util::tensor::ToDevice(torch::zeros({1, 1, rnn_base}), device));
    auto state = states.to(device);
    return trade(state, hs)[0].sum().item<float>();
  }
  float test(torch::Device device, const torch::Tensor &states) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> hs(hx_size, util::tensor::ToDevice(torch::zeros({1, 1, rnn_base}), device));
    auto state = states.to(device);
    return trade(state, hs)[0].sum().item<float>();
  }
};
