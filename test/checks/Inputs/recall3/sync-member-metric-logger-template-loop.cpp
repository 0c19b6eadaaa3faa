// Recall round 3 reproducer (miss file by file), from Navifra-Kerry/SemanticSegmentation-Libtorch
// (include/training.h 48, train_one_epoch<Net, DataLoader>, instantiated from src/main.cpp 107; the
// member is MetricLogger::update(std::map<std::string, torch::Tensor>) of src/utills/metric_logger.cpp
// 80-84, item() at 83), reduced to one file. Every training iteration hands the loss to the logger, which reads it with item()
// into a smoothed-value window for the ETA line printed every 20 iterations: one host-device
// synchronisation per step for bookkeeping. Upstream the member is defined in another translation unit.
// Expected: a [torch-sync-in-loop] warning at line 57 (the call of 'update'), with a note at the item() of
// line 38. In this one-file form the check reports it (the project's miss is the other translation unit);
// the [torch-history-in-container] warning at line 56 is the false positive of
// history-map-constant-key-overwritten.cpp.
#include <torch/torch.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

torch::Tensor criterion(const torch::Tensor &output, const torch::Tensor &target);

class SmoothedValue {
public:
  void update(float value) { deque.push_back(value); total += value; }
private:
  std::deque<float> deque;
  float total = 0;
};

class MetricLogger {
public:
  void update(std::map<std::string, torch::Tensor> losses);
  void update(std::map<std::string, float> losses);
private:
  std::map<std::string, SmoothedValue> meters;
};
void MetricLogger::update(std::map<std::string, torch::Tensor> losses) {
  for (auto i = losses.begin(); i != losses.end(); ++i)
    meters[i->first].update(i->second.item<float>());
}
void MetricLogger::update(std::map<std::string, float> losses) {
  for (auto i = losses.begin(); i != losses.end(); ++i)
    meters[i->first].update(i->second);
}

template <typename Net, typename DataLoader>
void train_one_epoch(Net model, torch::Device device, DataLoader &data_loader, torch::optim::Optimizer &optimizer) {
  model->train();
  auto meters = MetricLogger();
  std::map<std::string, torch::Tensor> loss_map;
  for (const auto &batch : *data_loader) {
    auto data = batch.data.to(device);
    auto targets = batch.target.to(device);
    optimizer.zero_grad();
    auto output = model->forward(data);
    auto loss = criterion(output, targets);
    loss_map["loss"] = loss;
    meters.update(loss_map);
    loss.backward();
    optimizer.step();
  }
}

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

struct Batch {
  torch::Tensor data, target;
};

void run(Net net, torch::optim::SGD &optimizer, std::unique_ptr<std::vector<Batch>> &loader) {
  train_one_epoch(net, torch::Device(torch::kCUDA), loader, optimizer);
}
