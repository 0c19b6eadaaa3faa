// A PPO-style rollout: act() stores each step's log-probability in the
// agent's vector; update() reads the vector detached. The stored tensors keep
// their graphs until update() clears them.
#include <torch/torch.h>
#include <cstdio>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

// A weak reference to a graph node, whichever pointer grad_fn() returns:
// std::shared_ptr<Node> (LibTorch 1.13) or c10::intrusive_ptr<Node> (2.15).
template <class Ptr> struct WeakNode;
template <class T> struct WeakNode<std::shared_ptr<T>> {
  std::weak_ptr<T> weak;
  void watch(const std::shared_ptr<T> &node) { weak = node; }
  bool expired() const { return weak.expired(); }
};
template <class T> struct WeakNode<c10::intrusive_ptr<T>> {
  std::optional<c10::weak_intrusive_ptr<T>> weak;
  void watch(const c10::intrusive_ptr<T> &node) { weak.emplace(node); }
  bool expired() const { return !weak || weak->expired(); }
};
using GradFn = std::decay_t<decltype(std::declval<torch::Tensor &>().grad_fn())>;

// The graph of the first step's forward pass, watched without keeping it.
WeakNode<GradFn> first_graph;
int steps = 0;

struct Agent {
  torch::nn::Linear policy{nullptr};
  std::vector<torch::Tensor> logProbs;
};

void act(Agent *agent, const torch::Tensor &obs) {
  auto out = agent->policy->forward(obs);
  if (steps++ == 0)
    first_graph.watch(out.grad_fn());
  agent->logProbs.push_back(torch::log_softmax(out, 1));
}

double update(Agent *agent, const torch::Tensor &obs, torch::optim::SGD &opt) {
  auto old = torch::cat(agent->logProbs).detach();
  double last = 0;
  for (int epoch = 0; epoch < 3; ++epoch) { // the ratio moves from 1 after the first step
    auto ratio = (torch::log_softmax(agent->policy->forward(obs), 1) - old).exp();
    auto loss = -(ratio * torch::arange(3).to(torch::kFloat)).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    last = loss.item<double>();
  }
  agent->logProbs.clear();
  return last;
}

int main() {
  torch::manual_seed(0);
  Agent agent;
  agent.policy = torch::nn::Linear(4, 3);
  torch::optim::SGD opt(agent.policy->parameters(), 0.1);
  auto obs = torch::randn({1, 4});
  double loss = 0;
  int kept = 0;
  for (int update_step = 0; update_step < 3; ++update_step) {
    for (int t = 0; t < 8; ++t)
      act(&agent, obs);
    if (update_step == 0)
      kept = first_graph.expired() ? 0 : 1; // alive after act() returned: something keeps it
    loss = update(&agent, torch::cat(std::vector<torch::Tensor>(8, obs)), opt);
  }
  std::printf("rollout: loss %.6f keeps graph %d\n", loss, kept);
}
