// Recall round 4 reproducer (two misses), from jiamny/Dive_into_deep_learning_with_libtorch
// (src/19_Reinforcement_Learning/Deep_Q_network.cpp), reduced.
// (1) 215-226: DQN::choose_action runs eval_net->forward with autograd on at every environment step; only the
//     indices of torch::max(x, 1), taken with `std::tie(_, action) = ...`, leave it (rule 4, inference by what it
//     does). Expected: [torch-eval-without-no-grad] at line 29; today: none. Written `action =
//     actions_value.argmax(1);` it is reported: the std::tie form of max's indices is not recognised.
// (2) 285: learn() runs `target_net->forward(b_s_).detach()` with autograd on in the middle of the update (rule 5,
//     the page's target-network example). Expected: [torch-eval-without-no-grad] at line 38; today: none.
//     Written `auto q0 = target_net->forward(s_); auto q_next = q0.detach();` it is reported: a .detach()
//     applied directly to the forward call is not seen.
#include <torch/torch.h>
#include <tuple>

struct NetImpl : torch::nn::Module {
  torch::nn::Linear f{nullptr};
  NetImpl() { f = register_module("f", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return f->forward(x); }
};
TORCH_MODULE(Net);

struct DQN {
  Net eval_net{nullptr}, target_net{nullptr};
  float EPSILON = 0.9;
  DQN() { eval_net = Net(); target_net = Net(); }
  torch::Tensor choose_action(torch::Tensor x) {
    x = x.unsqueeze(0).to(torch::kFloat32);
    torch::Tensor action, _;
    if (torch::rand({1}).item<float>() < EPSILON) {
      torch::Tensor actions_value = eval_net->forward(x);
      std::tie(_, action) = torch::max(actions_value, 1);
    } else {
      action = torch::randint(0, 4, {1});
    }
    return action;
  }
  void learn(torch::optim::Optimizer &opt, torch::Tensor s, torch::Tensor a, torch::Tensor s_) {
    auto q_eval = eval_net->forward(s).index({0, a});
    auto q_next = target_net->forward(s_).detach();
    auto loss = (q_eval - 0.9 * q_next.sum()).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
};

int main() {
  DQN dqn;
  auto opt = torch::optim::Adam(dqn.eval_net->parameters(), 0.01);
  for (int i = 0; i < 100; ++i) {
    torch::Tensor s = torch::rand({4});
    torch::Tensor a = dqn.choose_action(s);
    dqn.learn(opt, s.unsqueeze(0), a.unsqueeze(0), torch::rand({1, 4}));
  }
}
