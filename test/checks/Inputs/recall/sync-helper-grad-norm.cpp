// Recall reproducer (issue 35), from laplaceliu/build-your-own-llm-using-cpp-and-libtorch
// (chapters/chapterD_training_loop/include/training_D.h, calc_norm_of_grads / clip_gradients,
// called from train_model's step loop), reduced.
// Expected: torch-sync-in-loop at the call in the training loop (line 41): the helper it calls
// synchronises once per parameter (an item() per gradient norm), on every training step, so a
// model with P parameter tensors waits for the device P times per step. The note should point at
// the item() in the helper (line 18).
//   expected: a [torch-sync-in-loop] warning at line 41 (the call of 'clip_gradients' in the training loop),
//   with a note at the item() of line 18 (in 'calc_norm_of_grads', reached through 'clip_gradients')
#include <torch/torch.h>

#include <cmath>
#include <vector>

inline double calc_norm_of_grads(const std::vector<torch::Tensor> &parameters) {
  double total_sq = 0.0;
  for (const auto &p : parameters) {
    if (p.grad().defined()) {
      auto n = p.grad().pow(2).sum().sqrt().item<double>(); // p.grad().norm(2) upstream
      total_sq += n * n;
    }
  }
  return std::sqrt(total_sq);
}

inline double clip_gradients(std::vector<torch::Tensor> parameters, double max_norm) {
  double total_norm = calc_norm_of_grads(parameters);
  double clip_factor = max_norm / (total_norm + 1e-5);
  if (clip_factor < 1.0)
    for (auto &p : parameters)
      if (p.grad().defined())
        p.grad().mul_(clip_factor);
  return total_norm;
}

void train_model(torch::nn::Linear &model, torch::optim::AdamW &optimizer,
                 std::vector<torch::Tensor> &parameters, const std::vector<torch::Tensor> &inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    optimizer.zero_grad();
    auto loss = model(inputs[i]).mean();
    loss.backward();
    double norm = clip_gradients(parameters, 1.0);
    (void)norm;
    optimizer.step();
  }
}
