// Recall reproducer (issue 35), from kartik2309/LibTorchPlayground
// (Trainer/Utilities/Metrics/Metrics.cpp, Metrics::accuracy, called from Trainer::train_loop and
// MultiprocessingBackend::fit once per batch), reduced.
// Expected: torch-sync-in-loop at the call of the helper in the training loop (line 30): the
// helper ends in item(), so every batch waits for the device once more, next to the loss's own
// item() on the next line (line 31, flagged today).
//   expected: a [torch-sync-in-loop] warning at line 30 (the call of 'Metrics::accuracy'), with a
//   note at the item() of line 16
#include <torch/torch.h>

#include <vector>

namespace Metrics {
float accuracy(torch::Tensor &predictedClasses, torch::Tensor &trueClasses) {
  torch::Tensor mean_ = predictedClasses.eq(trueClasses).sum() / trueClasses.size(0);
  return mean_.item<float>();
}
} // namespace Metrics

void train_loop(torch::nn::Linear &model, torch::optim::AdamW &optimizer,
                std::vector<torch::Tensor> &data, std::vector<torch::Tensor> &targets) {
  std::vector<float> losses, accuracies;
  for (size_t i = 0; i < data.size(); ++i) {
    auto logits = model(data[i]);
    auto predictedClasses = torch::argmax(logits, -1);
    optimizer.zero_grad();
    auto loss = torch::mse_loss(logits, targets[i]);
    loss.backward();
    optimizer.step();
    float accuracyValue = Metrics::accuracy(predictedClasses, targets[i]);
    losses.push_back(loss.item<float>());
    accuracies.push_back(accuracyValue);
  }
}
