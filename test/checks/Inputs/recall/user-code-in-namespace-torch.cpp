// Recall reproducer (issue 35), from yncxcw/torch-cpp-trainer (include/trainer.hpp,
// torch::Trainer<TaskFactory>::train, instantiated by example/cifar10_resnet/train.cpp), reduced.
// Expected: torch-sync-in-loop at the item() printed on every step (line 37). The project
// declares its trainer inside `namespace torch` (upstream: `namespace torch { template <typename
// TaskFactory> class Trainer ... }` in the project's own include/trainer.hpp). Code in the
// project's files is user code whatever namespace it opens: today the checks skip it as if it
// were LibTorch's own (tried: sync-in-loop, eval-without-no-grad, history-in-container; the same
// code in another namespace is flagged by each). The loop is a member
// of a class template whose loader, batch and collate function depend on the template parameter.
//   expected warning (line 37): 'item()' on every iteration of the training loop synchronizes the host with the device: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <memory>
#include <vector>

namespace torch {
template <typename TaskFactory> class Trainer {
public:
  using Dataset = typename TaskFactory::TaskDataset;
  using Sampler = typename TaskFactory::TaskSampler;
  using ExampleType = typename TaskFactory::ExampleType;

  void train(size_t epochs) {
    for (size_t epoch = 0; epoch < epochs; epoch++) {
      size_t step = 0;
      for (auto &batch : *ptr_dataloader) {
        auto collated_batch = collate_function(batch);
        auto data = collated_batch.data.to(device);
        auto target = collated_batch.target.to(device);
        auto output = model->forward(data);
        torch::Tensor loss = loss_function(output, target);
        ptr_optimizer->zero_grad();
        loss.backward();
        ptr_optimizer->step();
        std::cout << "Step " << step << " loss " << loss.item<float>() << /* item() upstream */ std::endl;
        step++;
      }
    }
  }

private:
  torch::Device device = torch::kCPU;
  torch::nn::Linear model{4, 2}; // a torch::nn::AnyModule upstream
  std::unique_ptr<torch::data::StatelessDataLoader<Dataset, Sampler>> ptr_dataloader;
  std::unique_ptr<torch::optim::Optimizer> ptr_optimizer;
  std::function<torch::Tensor(torch::Tensor, torch::Tensor)> loss_function;
  std::function<ExampleType(std::vector<ExampleType>)> collate_function;
};
} // namespace torch

struct Factory {
  using TaskDataset = torch::data::datasets::MNIST;
  using TaskSampler = torch::data::samplers::RandomSampler;
  using ExampleType = torch::data::Example<>;
};

void run(torch::Trainer<Factory> &trainer) { trainer.train(10); }
