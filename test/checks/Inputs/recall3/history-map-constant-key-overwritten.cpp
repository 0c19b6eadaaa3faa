// Recall round 3 reproducer (false positive), from Navifra-Kerry/SemanticSegmentation-Libtorch
// (include/training.h 20 and 46, train_one_epoch<Net, DataLoader>), reduced. A map declared before the
// training loop receives the loss under one constant key on every iteration: the entry is replaced, so the
// map never holds more than the current iteration's loss, whose saved activations backward() frees in the
// same iteration. Nothing is collected across iterations (the map is a one-entry argument for a logger).
// Expected: no warning; today: [torch-history-in-container] at line 31 ("the graph of every iteration stays
// alive as long as 'loss_map' holds it").
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

struct Batch {
  torch::Tensor data, target;
};
struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

void log_losses(const std::map<std::string, torch::Tensor> &losses);

void train_one_epoch(Net model, std::vector<Batch> &loader, torch::optim::SGD &optimizer) {
  model->train();
  std::map<std::string, torch::Tensor> loss_map;
  for (const auto &batch : loader) {
    optimizer.zero_grad();
    auto output = model->forward(batch.data);
    auto loss = torch::mse_loss(output, batch.target);
    loss_map["loss"] = loss;
    log_losses(loss_map);
    loss.backward();
    optimizer.step();
  }
}
