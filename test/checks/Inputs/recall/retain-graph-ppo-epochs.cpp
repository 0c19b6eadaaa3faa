// Recall reproducer (issue 35), from lolmanjo/LibTorch_PPO (src/TrainingController.cpp,
// TrainingController::optimizePPO), reduced.
// Expected: torch-unneeded-retain-graph on the retain_graph=true call (line 30): every PPO epoch
// runs a new forward pass on the (detached) rollout, so the next epoch's backward pass never
// reaches this epoch's graph; retaining it keeps the graph and its saved tensors alive until the
// loss dies, for nothing. The last epoch already passes false, which shows the author meant
// "another backward pass follows", not "the same graph is used again".
//   expected warning (line 30): 'retain_graph' is true but no later backward pass in this loop iteration can reach the graph [torch-unneeded-retain-graph]
#include <torch/torch.h>

struct PolicyImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Policy);

void optimize(Policy &model, torch::optim::Adam &optimizer, std::vector<torch::Tensor> &states,
              std::vector<torch::Tensor> &log_probs, torch::Tensor advantages, int epochs) {
  auto t_states = torch::cat(states).detach();
  auto t_old = torch::cat(log_probs).detach();
  auto t_adv = advantages.detach();
  for (int i = 0; i < epochs; i++) {
    auto new_log_prob = model(t_states);
    auto ratio = (new_log_prob - t_old).exp();
    auto loss = -(ratio * t_adv).mean(); // the clipped surrogate, simplified
    float logged = loss.item<float>();
    (void)logged;
    optimizer.zero_grad();
    if (i != epochs - 1) {
      // Retain graph if this is not the last ppo_epoch.
      loss.backward({}, true);
    } else {
      loss.backward({}, false);
    }
    optimizer.step();
  }
}
