// Recall reproducer (issue 35), from QuentinVacher-rl/SoftActorCritic-in-Cpp-using-LibTorch
// (src/softActorCritic.cpp, SoftActorCritic::learn), reduced.
// Expected: torch-unneeded-retain-graph on both retain_graph=true calls. Each later backward pass
// starts from a graph built afresh by new forward passes (the actor and critic losses are computed
// from a second sampleNormal and new critic forwards; the critic loss from the stored batch), so no
// later backward pass can reach the value loss's or the actor loss's graph (the target network's
// output, computed before the first backward pass, is in the critic loss's graph only). The variables
// (outputActorNet, actions, criticValue) are reassigned before the later passes: what a later
// backward reaches is decided by the values they hold then, not by their names.
//   expected warning (line 41): 'retain_graph' is true but no later backward pass in this function can reach the graph [torch-unneeded-retain-graph]
//   expected warning (line 48): the same
#include <torch/torch.h>

#include <utility>

struct ActorImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state);
  std::pair<torch::Tensor, torch::Tensor> sampleNormal(torch::Tensor state, bool reparameterize);
};
TORCH_MODULE(Actor);
struct CriticImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state, torch::Tensor action);
};
TORCH_MODULE(Critic);
struct ValueImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor state);
};
TORCH_MODULE(Value);

void learn(Actor &actor, Critic &critic, Value &value, Value &target, torch::optim::Adam &opt,
           torch::Tensor batch, torch::Tensor batch_actions, torch::Tensor batch_rewards) {
  // the sampled replay batch carries no history (the buffer stores detached tensors)
  auto states = batch.detach();
  auto stored_actions = batch_actions.detach();
  auto rewards = batch_rewards.detach();
  auto v = value(states);
  auto next_v = target(states); // built before the first backward, but part of neither retained graph
  auto out = actor->sampleNormal(states, false);
  auto criticValue = critic(states, out.first);
  auto valueLoss = torch::mse_loss(v, criticValue - out.second);
  valueLoss.backward({}, true);
  opt.step();

  out = actor->sampleNormal(states, true); // a new graph from here on
  criticValue = critic(states, out.first);
  auto actorLoss = (out.second - criticValue).mean();
  opt.zero_grad();
  actorLoss.backward({}, true);
  opt.step();

  auto q_hat = rewards + 0.99 * next_v;
  auto criticLoss = torch::mse_loss(critic(states, stored_actions), q_hat);
  opt.zero_grad();
  criticLoss.backward();
  opt.step();
}
