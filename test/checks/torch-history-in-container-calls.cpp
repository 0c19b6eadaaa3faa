// RUN: %check_torch_tidy %s torch-history-in-container %t
// A container data member filled by a method that a loop calls.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

namespace F = torch::nn::functional;

// ---- positives -------------------------------------------------------------

// A trainer appends every step's loss to a member that is never cleared.
struct Trainer {
  Net model;
  torch::optim::SGD optimizer{model->parameters(), torch::optim::SGDOptions(0.1)};
  std::vector<torch::Tensor> losses_;

  void train_step(torch::Tensor x, torch::Tensor y) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
    losses_.push_back(loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'losses_' keeps a tensor that carries autograd history
    // CHECK-MESSAGES: :[[@LINE-5]]:17: note: the history comes from this call
    // CHECK-MESSAGES: :[[@LINE-10]]:30: note: 'losses_' is a data member: it keeps its value from one call to the next
    // CHECK-MESSAGES: :[[@LINE+5]]:7: note: 'train_step' is called in a loop here, once per iteration
  }
  // CHECK-FIXES: losses_.push_back(loss.detach());
  void fit(const std::vector<torch::Tensor> &xs, torch::Tensor y) {
    for (const auto &x : xs)
      train_step(x, y);
  }
};

// A logger method receives the output from the caller's loop.
struct History {
  std::vector<torch::Tensor> outputs_;
  void log(const torch::Tensor &out) { outputs_.push_back(out); }
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'outputs_' keeps a tensor that carries autograd history
  // CHECK-MESSAGES: :[[@LINE-3]]:30: note: 'outputs_' is a data member
  // CHECK-MESSAGES: :[[@LINE+8]]:5: note: 'log' is called in a loop here, once per iteration
  // CHECK-MESSAGES: :[[@LINE+7]]:11: note: this argument carries the history
};
// CHECK-FIXES: void log(const torch::Tensor &out) { outputs_.push_back(out.detach()); }
void predict_all(Net &model, const std::vector<torch::Tensor> &xs) {
  History h;
  for (const auto &x : xs) {
    auto out = model(x);
    h.log(out);
  }
}

// ---- negatives -------------------------------------------------------------

// Another method clears the member (once per epoch, say).
struct Cleared {
  Net model;
  std::vector<torch::Tensor> batch_losses_;
  void step(torch::Tensor x) { batch_losses_.push_back(model(x).sum()); }
  void end_epoch() { batch_losses_.clear(); }
  void fit(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs)
      step(x);
    end_epoch();
  }
};

// The stored losses are summed and back-propagated by another method.
struct Rollout {
  Net model;
  std::vector<torch::Tensor> log_probs_;
  void act(torch::Tensor x) { log_probs_.push_back(model(x).sum()); }
  void finish() { torch::stack(log_probs_).sum().backward(); }
};
void run_episode(Rollout &r, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    r.act(x);
  r.finish();
}

// A detached value from the caller.
template <int N> struct QuietLog {
  std::vector<torch::Tensor> kept_;
  void add(const torch::Tensor &t) { kept_.push_back(t); }
};
void detached_in_caller(Net &model, const std::vector<torch::Tensor> &xs) {
  QuietLog<1> log;
  for (const auto &x : xs)
    log.add(model(x).detach());
}

// The method is reached only through a virtual call: the override is unknown,
// so the chain stops there.
struct Sink {
  virtual ~Sink() = default;
  virtual void put(const torch::Tensor &t) = 0;
};
struct VectorSink : Sink {
  std::vector<torch::Tensor> items_;
  void put(const torch::Tensor &t) override { items_.push_back(t); }
};
void fill_sink(Net &model, Sink &s, const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs)
    s.put(model(x));
}

// A pool of past generator outputs (CycleGAN's image pool): the method's own
// loop walks the batch and stores each image; the history comes from the
// caller's loop, which passes the generator's output on every iteration.
struct ImagePool {
  std::vector<torch::Tensor> pool_;
  int size_ = 50;
  torch::Tensor query(torch::Tensor images) {
    std::vector<torch::Tensor> out;
    for (int i = 0; i < images.size(0); ++i) {
      if (static_cast<int>(pool_.size()) < size_) {
        pool_.push_back(images[i]);
        // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'pool_' keeps a tensor that carries autograd history
        // CHECK-MESSAGES: :[[@LINE-8]]:30: note: 'pool_' is a data member
        // CHECK-MESSAGES: :[[@LINE+27]]:19: note: 'query' is called in a loop here, once per iteration
        // CHECK-MESSAGES: :[[@LINE+26]]:30: note: this argument carries the history
        out.push_back(images[i].detach());
      } else {
        out.push_back(pool_.back().detach());
      }
    }
    return torch::stack(out);
  }
  // CHECK-FIXES: pool_.push_back(images[i].detach());
};
// The same pool given detached images: nothing to report.
struct DetachedPool {
  std::vector<torch::Tensor> pool_;
  void add(torch::Tensor images) {
    for (int i = 0; i < images.size(0); ++i)
      pool_.push_back(images[i]);
  }
};
void train_gan(Net &gen, Net &dis, torch::optim::SGD &opt, ImagePool &pool, DetachedPool &quiet,
               const std::vector<torch::Tensor> &xs) {
  for (const auto &x : xs) {
    auto fake = gen(x);
    auto loss = dis(fake).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    auto pooled = pool.query(fake);
    quiet.add(fake.detach());
    (void)pooled;
  }
}
