// RUN: %check_torch_tidy %s torch-dataloader-defaults %t
#include <torch/torch.h>

using torch::data::datasets::MNIST;

void defaults(const std::string &root) {
  auto loader = torch::data::make_data_loader(MNIST(root));
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'make_data_loader' without options loads batches of one example on the main thread: every step pays the per-batch overhead and waits for its data [torch-dataloader-defaults]
  // CHECK-MESSAGES: :[[@LINE-2]]:58: note: pass options as the last argument, e.g. 'torch::data::DataLoaderOptions().batch_size(64).workers(2)'
  for (auto &batch : *loader)
    (void)batch;
}

void with_sampler_and_template_args(const std::string &root) {
  auto test_loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(MNIST(root));
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'make_data_loader' without options
  // CHECK-MESSAGES: :[[@LINE-2]]:90: note: pass options
}

struct Trainer {
  void setup(const std::string &root) {
    using namespace torch::data;
    auto make = [&] { return make_data_loader(MNIST(root)); };
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'make_data_loader' without options
    // CHECK-MESSAGES: :[[@LINE-2]]:58: note: pass options
    auto loader = make();
  }
};

// ---- must not flag ----------------------------------------------------------

void explicit_options(const std::string &root) {
  auto a = torch::data::make_data_loader(MNIST(root), 64); // batch size
  auto b = torch::data::make_data_loader(
      MNIST(root), torch::data::DataLoaderOptions().batch_size(64).workers(2));
  auto c = torch::data::make_data_loader(MNIST(root), torch::data::DataLoaderOptions());
  auto d = torch::data::make_data_loader(MNIST(root), torch::data::samplers::RandomSampler(10),
                                         torch::data::DataLoaderOptions(32));
  torch::data::DataLoaderOptions opts;
  opts.batch_size(128);
  auto e = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(MNIST(root), opts);
}

namespace mine {
template <typename D> int make_data_loader(D dataset);
}
void not_libtorch(const std::string &root) { mine::make_data_loader(MNIST(root)); }
