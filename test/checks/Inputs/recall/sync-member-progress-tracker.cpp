// Recall reproducer (issue 35), from thisisi3/libtorch-faster-rcnn (frcnn/utils.cpp,
// ProgressTracker::track_loss, called from BasicTrainer::train in frcnn/trainer.cpp once per
// iteration), reduced to one file (upstream the member is defined in another translation unit,
// so the project needs --cross-tu to see it).
// Expected: torch-sync-in-loop at the call of the member in the training loop (line 38): the
// member reads every loss of the map with item() (five losses, five synchronisations per step)
// to keep a running history for a report printed every log_period iterations.
//   expected: a [torch-sync-in-loop] warning at line 38 (the call of 'track_loss'), with a note at
//   the item() of line 26
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

class ProgressTracker {
public:
  void track_loss(const std::map<std::string, torch::Tensor> &losses);

private:
  std::map<std::string, std::vector<double>> _tracked_loss;
};

void ProgressTracker::track_loss(const std::map<std::string, torch::Tensor> &losses) {
  for (auto &loss : losses)
    _tracked_loss[loss.first].push_back(loss.second.item<double>());
}

std::map<std::string, torch::Tensor> forward_train(torch::nn::Linear &model, torch::Tensor img);

void train(torch::nn::Linear &model, torch::optim::SGD &optimizer, ProgressTracker &tracker,
           std::vector<torch::Tensor> &images) {
  for (auto &img : images) {
    auto model_loss = forward_train(model, img);
    auto tot_loss = model_loss["rpn_cls_loss"] + model_loss["rcnn_cls_loss"];
    model_loss["loss"] = tot_loss;
    optimizer.zero_grad();
    tracker.track_loss(model_loss);
    tot_loss.backward();
    optimizer.step();
  }
}
