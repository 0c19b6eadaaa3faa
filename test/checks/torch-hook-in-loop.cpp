// RUN: %check_torch_tidy %s torch-hook-in-loop %t
#include <torch/torch.h>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// --- Positives ----------------------------------------------------------------

// Gradient clipping by a hook, registered again on every step.
void train(Net &net, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y, int steps) {
  for (int step = 0; step < steps; ++step) {
    for (auto &p : net->parameters())
      p.register_hook([](torch::Tensor g) { return g.clamp(-1, 1); });
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: hook registered on 'p' on every iteration of a loop and never removed: the hooks pile up on the tensor, each backward pass runs all of them, and what they capture stays alive [torch-hook-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
    opt.zero_grad();
    torch::mse_loss(net->forward(x), y).backward();
    opt.step();
  }
}

// RL agent: a hook on a member tensor to record gradient norms, per episode.
struct Agent {
  torch::Tensor log_std_;
  std::vector<float> norms_;
  void learn(int episodes, torch::Tensor obs) {
    int e = 0;
    while (e++ < episodes) {
      log_std_.register_hook([this](torch::Tensor g) { norms_.push_back(0.f); return g; });
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: hook registered on 'log_std_' on every iteration
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop is here
      (obs * log_std_).sum().backward();
    }
  }
};

// A variable declared before the loop, and a parameter.
void saliency(Net &net, torch::Tensor image, std::vector<torch::Tensor> &grads) {
  torch::Tensor input = image.requires_grad_();
  for (int i = 0; i < 10; ++i) {
    input.register_hook([&grads](torch::Tensor g) { grads.push_back(g); return g; });
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: hook registered on 'input' on every iteration
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    image.register_hook([](torch::Tensor g) { return g; });
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: hook registered on 'image' on every iteration
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
    net->forward(input).sum().backward();
  }
}

// Indexed parameters hooked again on every epoch: each epoch adds a hook to
// every element.
void indexed_per_epoch(std::vector<torch::Tensor> &params, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (size_t i = 0; i < params.size(); ++i)
      params[i].register_hook([](torch::Tensor g) { return g.clamp(-1, 1); });
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: hook registered on 'params' on every iteration of a loop and never removed: the hooks pile up on the tensor, each backward pass runs all of them, and what they capture stays alive [torch-hook-in-loop]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
  }
}

// The same element (index fixed) on every iteration.
void fixed_index(std::vector<torch::Tensor> &params, int steps) {
  for (int step = 0; step < steps; ++step)
    params[0].register_hook([](torch::Tensor g) { return g; });
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: hook registered on 'params' on every iteration
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
}

// --- Look-alikes that must stay silent ----------------------------------------

// Removed in the same iteration.
void removed(torch::Tensor w, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto handle = w.register_hook([](torch::Tensor g) { return g * 2; });
    (w * w).sum().backward();
    w.remove_hook(handle);
  }
}

// Registered once, before the loop; once per parameter (no outer loop).
void once(Net &net, torch::Tensor w, int steps) {
  w.register_hook([](torch::Tensor g) { return g; });
  for (auto &p : net->parameters())
    p.register_hook([](torch::Tensor g) { return g; });
  for (int i = 0; i < steps; ++i)
    (w * w).sum().backward();
}

// A tensor created in the iteration: its hooks die with it.
void per_iteration(Net &net, torch::Tensor x, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto out = net->forward(x);
    out.register_hook([](torch::Tensor g) { return g; });
    out.sum().backward();
  }
  torch::Tensor h;
  for (int i = 0; i < steps; ++i) {
    h = net->forward(x);
    h.register_hook([](torch::Tensor g) { return g; });
    h.sum().backward();
  }
}

// Only on the first step.
void first_step(torch::Tensor w, int steps) {
  for (int i = 0; i < steps; ++i) {
    if (i == 0)
      w.register_hook([](torch::Tensor g) { return g; });
    (w * w).sum().backward();
  }
}

// A lambda spelled in the loop runs later.
void deferred(torch::Tensor w, std::vector<std::function<void()>> &jobs) {
  for (int i = 0; i < 3; ++i)
    jobs.push_back([w] { w.register_hook([](torch::Tensor g) { return g; }); });
}

// Indexed registration on a container made afresh each epoch: its tensors
// and their hooks die with it.
std::vector<torch::Tensor> make_params();
void indexed_fresh_each_epoch(int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    std::vector<torch::Tensor> params = make_params();
    for (size_t i = 0; i < params.size(); ++i)
      params[i].register_hook([](torch::Tensor g) { return g; });
  }
}

// One hook per parameter, picked by the loop's index (a distributed reducer
// marking each gradient ready): every iteration hooks another tensor, once.
struct Reducer {
  std::vector<torch::Tensor> parameters_;
  void mark_ready(size_t i, const torch::Tensor &g);
  void register_hooks() {
    for (size_t i = 0; i < parameters_.size(); ++i)
      parameters_[i].register_hook([this, i](const torch::Tensor &g) -> torch::Tensor {
        mark_ready(i, g);
        return g;
      });
    for (auto it = parameters_.begin(); it != parameters_.end(); ++it)
      it->register_hook([](torch::Tensor g) { return g; });
    size_t k = 0;
    while (k < parameters_.size()) {
      parameters_.at(k).register_hook([](torch::Tensor g) { return g; });
      ++k;
    }
  }
};
