// A trainer that empties the CUDA cache after every step and once after
// training. Built against a CUDA LibTorch it includes the allocator's header;
// a CPU-only LibTorch has no allocator, so a stand-in with the same name keeps
// the program building there.
#include <torch/torch.h>

#if __has_include(<c10/cuda/impl/cuda_cmake_macros.h>) // a CUDA build of LibTorch
#include <c10/cuda/CUDACachingAllocator.h>
#else
namespace c10::cuda::CUDACachingAllocator {
inline void emptyCache() {}
} // namespace c10::cuda::CUDACachingAllocator
#endif

#include <cstdio>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct Synthetic : torch::data::datasets::Dataset<Synthetic> {
  torch::Tensor x = torch::randn({128, 8});
  torch::Tensor y = x.sum(1, /*keepdim=*/true);
  torch::data::Example<> get(size_t i) override { return {x[i], y[i]}; }
  torch::optional<size_t> size() const override { return 128; }
};

int main() {
  torch::manual_seed(0);
  const bool cuda = torch::cuda::is_available();
  torch::Device device(cuda ? torch::kCUDA : torch::kCPU);
  Net model;
  model->to(device);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto loader = torch::data::make_data_loader(Synthetic().map(torch::data::transforms::Stack<>()),
                                              torch::data::DataLoaderOptions().batch_size(16));
  double last = 0;
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(batch.data.to(device)), batch.target.to(device));
    loss.backward();
    opt.step();
    last = loss.item<double>();
    if (cuda)
      c10::cuda::CUDACachingAllocator::emptyCache(); // under a condition: not flagged
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
  if (cuda)
    c10::cuda::CUDACachingAllocator::emptyCache(); // after the loop: fine
  std::printf("last loss %.4f\n", last);
  return 0;
}
