// RUN: %check_torch_tidy %s torch-sync-in-loop %t
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                torch::data::samplers::RandomSampler>;

// ---- positives -------------------------------------------------------------

double for_loop(Net &model, torch::optim::SGD &optimizer, torch::Tensor x, torch::Tensor y) {
  double total = 0;
  for (int i = 0; i < 100; ++i) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
    total += loss.item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' on every iteration of the training loop synchronizes the host with the device: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: training loop here; synchronize only under a logging condition (`if (step % N == 0)`) or after the loop
  }
  return total;
}

void range_for_over_loader(Net &model, Loader &loader, std::vector<float> &history) {
  auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters());
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (auto &batch : loader) {
      optimizer->zero_grad();
      auto out = model->forward(batch[0].data);
      auto loss = torch::nll_loss(out, batch[0].target);
      loss.backward();
      optimizer->step();
      history.push_back(loss.item().toFloat());
      // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'item()' on every iteration
      auto pred = out.argmax(1).cpu();
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'cpu()' on every iteration
      auto correct = pred.eq(batch[0].target).sum().item<int64_t>(); // already on the CPU
    }
    std::printf("epoch %d done %f\n", epoch, history.back()); // the epoch loop: fine
  }
}

void while_and_do(Net &model, torch::optim::SGD *opt, torch::Tensor x) {
  int step = 0;
  while (step++ < 100) {
    opt->zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt->step();
    torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'torch::cuda::synchronize()' on every iteration
  }
  do {
    opt->zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt->step();
    auto host = loss.detach().to(torch::Device(torch::kCPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'to(kCPU)' on every iteration
    if (loss.item<float>() < 1e-3f) // the host branches on it: not flagged
      break;
  } while (--step > 0);
}

struct Trainer {
  Net model;
  torch::optim::Adam opt_;
  float last = 0;
  void train_epoch(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs) {
      opt_.zero_grad();
      auto loss = model->forward(x).sum();
      loss.backward();
      opt_.step();
      last = loss.template item<float>();
      // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item()' on every iteration
      auto host = loss.to(torch::Device("cpu"));
      // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'to(kCPU)' on every iteration
      last += host.item<float>(); // already on the CPU
    }
  }
};

void in_a_lambda(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      opt.zero_grad();
      auto loss = model(x).sum();
      loss.backward();
      opt.step();
      std::printf("%f\n", loss.item<float>());
      // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item()' on every iteration
    }
  };
  run(3);
}

// ---- negatives -------------------------------------------------------------

void logging_condition(Net &model, torch::optim::SGD &opt, torch::Tensor x, int log_every) {
  for (int step = 0; step < 1000; ++step) {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    if (step % 100 == 0)
      std::printf("%f\n", loss.item<float>());
    if (step % log_every == 0) {
      auto cpu = loss.cpu();
      std::printf("%f\n", cpu.item<float>());
    }
  }
}

void after_the_loop(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  torch::Tensor loss;
  for (int step = 0; step < 1000; ++step) {
    opt.zero_grad();
    loss = model(x).sum();
    loss.backward();
    opt.step();
  }
  std::printf("%f\n", loss.item<float>());
  torch::cuda::synchronize();
}

void not_a_training_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 10; ++i)
    std::printf("%f\n", model(x).sum().item<float>()); // evaluation
}

void device_moves(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Device device) {
  for (int step = 0; step < 1000; ++step) {
    opt.zero_grad();
    auto loss = model(x.to(device)).sum(); // to the device, not to the host
    loss.backward();
    opt.step();
  }
}

void closure(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.step([&] {
      opt.zero_grad();
      auto loss = model(x).sum();
      loss.backward();
      return loss;
    });
  }
}

// The host branches on the value on every iteration: the sync is the
// algorithm's (early stopping, a loss-gated update, an assertion).
void stop_criterion(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  float loss_value = 0;
  while (true) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss_value = loss.item<float>();
    loss.backward();
    opt.step();
    if (loss_value < 1e-3f)
      break;
  }
}

void kl_early_stop(Net &model, torch::optim::Adam &opt, torch::Tensor x, torch::Tensor old_logp) {
  for (int epoch = 0; epoch < 4; ++epoch) {
    for (int i = 0; i < 32; ++i) {
      auto logp = model(x);
      auto kl = (old_logp - logp).mean().item().toFloat();
      if (kl > 0.02f)
        return;
      opt.zero_grad();
      logp.sum().backward();
      opt.step();
    }
  }
}

void loss_gated_update(Net &model, torch::optim::Adam &opt, torch::Tensor x, float threshold) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum();
    if (loss.item<float>() > threshold) {
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
  }
}

void loop_condition_reads_it(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  double current = 1.0;
  do {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    current = loss.item<double>();
  } while (current > 0.01);
}

// Accumulating for a later report is not a branch: still flagged.
double accumulate_then_branch_on_counter(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  double running = 0;
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    opt.step();
    running += loss.item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item()' on every iteration of the training loop synchronizes the host with the device: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: training loop here; synchronize only under a logging condition (`if (step % N == 0)`) or after the loop
    if (i % 10 == 9)
      std::printf("%f\n", running / 10);
  }
  return running;
}

// DataLoader batches are assembled on the host: moving their fields to the
// CPU does not wait for the device.
void batch_to_cpu(Net &model, Loader &loader, torch::optim::SGD &opt) {
  for (auto &batch : loader) {
    auto inputs = batch[0].data.to(torch::Device(torch::kCPU));
    auto labels = batch[0].target.cpu();
    opt.zero_grad();
    auto loss = torch::nll_loss(model(inputs), labels);
    loss.backward();
    opt.step();
  }
}

// Once moved to a device, a batch tensor may live on the GPU: still flagged.
void batch_to_device_then_host(Net &model, Loader &loader, torch::optim::SGD &opt,
                               torch::Device device) {
  for (auto &batch : loader) {
    auto target = batch[0].target.to(device);
    opt.zero_grad();
    auto out = model(batch[0].data.to(device));
    torch::nll_loss(out, target).backward();
    opt.step();
    auto host = target.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'cpu()' on every iteration of the training loop synchronizes the host with the device: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-8]]:3: note: training loop here; synchronize only under a logging condition (`if (step % N == 0)`) or after the loop
  }
}

// A per-step assertion on the value (AT_ASSERT / TORCH_CHECK expand to an `if`).
#define ASSERT_FINITE(cond)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      throw std::runtime_error("loss is not finite");                          \
  } while (false)

// An assertion on the value waits for the device on every step only to
// throw: flagged (it could check a device-side flag once per epoch).
void nan_assertion(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = model(x).sum();
    ASSERT_FINITE(std::isfinite(loss.item<float>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'item()' on every iteration of the training loop
    // synchronizes CHECK-MESSAGES: :[[@LINE-5]]:3: note: training loop here
    TORCH_CHECK(!std::isnan(loss.item<float>()), "loss is NaN");
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item()' on every iteration of the training loop
    // synchronizes CHECK-MESSAGES: :[[@LINE-8]]:3: note: training loop here
    AT_ASSERT(loss.item<float>() < 1e9f);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' on every iteration of the training loop
    // synchronizes CHECK-MESSAGES: :[[@LINE-11]]:3: note: training loop here
    loss.backward();
    opt.step();
  }
}

// The value chooses only what is printed or saved: the best loss so far and
// its checkpoint, a counter. Flagged: the comparison can run on the device
// (torch::minimum) or once per epoch.
void best_checkpoint(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  float best = 1e9f;
  int improved = 0;
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    if (best > loss.item<float>()) {
      // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item()' on every iteration of the training loop
      // synchronizes CHECK-MESSAGES: :[[@LINE-7]]:3: note: training loop here
      best = loss.item<float>(); // (runs only when the loss improved)
      std::printf("new best\n");
    }
    float v = loss.detach().mean().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'item()' on every iteration of the training loop
    // synchronizes CHECK-MESSAGES: :[[@LINE-13]]:3: note: training loop here
    if (v < 0.5f)
      ++improved;
    std::printf("%s\n", loss.item<float>() < 1.0f ? "converged" : "");
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'item()' on every iteration of the training loop
    // synchronizes CHECK-MESSAGES: :[[@LINE-18]]:3: note: training loop here
  }
  std::printf("%d %f\n", improved, best);
}

// Look-alikes: the value decides what the training does on this iteration.
void update(Net &model, torch::optim::SGD &opt, const torch::Tensor &loss);
void value_decides_the_step(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    if (std::isnan(loss.item<float>())) // skips the step: the algorithm's
      continue;
    float v = loss.item<float>();
    if (v > 10.0f) { // a helper that takes the optimizer steps in the branch
      update(model, opt, loss);
    } else {
      loss.backward();
      opt.step();
    }
    switch (loss.item<int>()) {
    case 0:
      break; // leaves only the switch
    default:
      return;
    }
  }
}

// Look-alike: a reinforcement-learning step picks the action for the
// environment from the policy's output; the loop reads the chosen action.
int env_step(int action);
void act_and_learn(Net &policy, torch::optim::Adam &opt, torch::Tensor state) {
  for (int t = 0; t < 1000; ++t) {
    auto out = policy(state);
    int action;
    if (out.item<float>() < 0.0f)
      action = 0;
    else if (out.item<float>() < 0.5f)
      action = 1;
    else
      action = 2;
    int reward = env_step(action);
    opt.zero_grad();
    (out * reward).sum().backward();
    opt.step();
  }
}

// The value shapes the step's tensor work: an argument of the forward pass and
// the bound of the slices the loss reads (a graph batch's edge count). The
// host needs it; no tensor can stand in for it.
struct EdgeNetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x, int64_t start) {
    return torch::cat({torch::ones({start, 1}), x.index({torch::indexing::Slice(start, torch::indexing::None)})});
  }
};
TORCH_MODULE(EdgeNet);
void slice_bound(EdgeNet &model, torch::optim::SGD &opt, std::vector<torch::Tensor> &xs, torch::Tensor starts) {
  for (size_t i = 0; i < xs.size(); ++i) {
    int64_t start = starts[i].item<int64_t>();
    auto out = model->forward(xs[i], start);
    auto loss = out.index({torch::indexing::Slice(start, torch::indexing::None)}).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A float read only to scale the loss: a tensor could stand in for it.
void loss_weight(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor weight) {
  for (int i = 0; i < 10; ++i) {
    float w = weight.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item()' on every iteration of the training loop synchronizes the host with the device
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: training loop here
    auto loss = model(x).sum() * w;
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}

// A project's own trainer declared inside `namespace torch` (upstream:
// yncxcw/torch-cpp-trainer's include/trainer.hpp) is user code: the checks
// analyse it like code in any other namespace. LibTorch's own code in those
// namespaces is recognised by where it is declared (its headers), not by the
// namespace alone.
namespace torch {
template <typename Model> class UserTrainer {
public:
  void train(Loader &loader, torch::optim::SGD &opt) {
    for (auto &batch : loader) {
      opt.zero_grad();
      torch::Tensor loss = torch::nll_loss(model(batch[0].data), batch[0].target);
      loss.backward();
      opt.step();
      std::printf("loss %f\n", loss.item<float>());
      // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'item()' on every iteration of the training loop synchronizes the host with the device: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
      // CHECK-MESSAGES: :[[@LINE-7]]:5: note: training loop here; synchronize only under a logging condition (`if (step % N == 0)`) or after the loop
    }
  }

private:
  Model model;
};
namespace nn {
struct UserLoop {
  void fit(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
    for (int i = 0; i < 10; ++i) {
      opt.zero_grad();
      auto loss = model(x).sum();
      loss.backward();
      opt.step();
      auto host = loss.cpu();
      // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'cpu()' on every iteration
    }
  }
};
} // namespace nn
} // namespace torch
void run_user_trainer(torch::UserTrainer<Net> &trainer, Loader &loader, torch::optim::SGD &opt) {
  trainer.train(loader, opt);
}

// ---- helpers the loop calls on every iteration -----------------------------

// A gradient norm read once per parameter (two levels of calls).
double grad_norm(const std::vector<torch::Tensor> &params) {
  double total = 0;
  for (const auto &p : params) {
    if (p.grad().defined()) {
      double n = p.grad().pow(2).sum().item<double>();
      total += n;
    }
  }
  return total;
}
double clip(std::vector<torch::Tensor> params, double max_norm) {
  double norm = grad_norm(params);
  for (auto &p : params)
    if (p.grad().defined())
      p.grad().mul_(max_norm / (norm + 1e-6));
  return norm;
}
float accuracy(const torch::Tensor &out, const torch::Tensor &target) {
  return out.argmax(1).eq(target).sum().item<float>() / target.size(0);
}
void train_with_helpers(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> &params,
                        torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    auto out = model(x);
    auto loss = torch::nll_loss(out, y);
    loss.backward();
    clip(params, 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clip' synchronizes the host with the device on every call, and the training loop calls it on every iteration: the CPU waits until all queued GPU work is done before it can enqueue the next batch [torch-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-25]]:40: note: 'item()' here, in 'grad_norm', which 'clip' calls
    // CHECK-MESSAGES: :[[@LINE-8]]:3: note: training loop here; synchronize only under a logging condition
    opt.step();
    float acc = accuracy(out, y);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'accuracy' synchronizes the host with the device on every call
    // CHECK-MESSAGES: :[[@LINE-16]]:41: note: 'item()' here, in 'accuracy'
    // CHECK-MESSAGES: :[[@LINE-13]]:3: note: training loop here
    (void)acc;
  }
}

// Look-alikes: helpers that synchronise only sometimes, or whose value the
// loop leaves on, or that the loop calls only sometimes.
void log_every(int step, const torch::Tensor &loss) {
  if (step % 100 != 0)
    return;
  std::printf("%f\n", loss.item<float>());
}
void log_when(bool verbose, const torch::Tensor &loss) {
  if (verbose)
    std::printf("%f\n", loss.item<float>());
}
float loss_value(const torch::Tensor &loss) { return loss.item<float>(); }
bool diverged(const torch::Tensor &loss) {
  if (loss.item<float>() > 1e6f) // the helper's own branch needs the value
    return true;
  return false;
}
void train_with_quiet_helpers(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y,
                              bool verbose) {
  float best = 1e9f;
  for (int step = 0; step < 100; ++step) {
    opt.zero_grad();
    auto loss = torch::nll_loss(model(x), y);
    loss.backward();
    opt.step();
    log_every(step, loss);
    log_when(verbose, loss);
    if (loss_value(loss) < best) // the value chooses only a bookkeeping branch
      best = 0;
    // CHECK-MESSAGES: :[[@LINE-2]]:9: warning: 'loss_value' synchronizes the host with the device
    // on every call CHECK-MESSAGES: :[[@LINE-19]]:59: note: 'item()' here, in 'loss_value'
    // CHECK-MESSAGES: :[[@LINE-11]]:3: note: training loop here
    if (diverged(loss))
      break;
    if (step % 50 == 0)
      std::printf("%f\n", loss_value(loss));
    auto later = [&] { return loss_value(loss); };
    (void)later;
  }
}

// ---- loops that train through a helper ---------------------------------------

torch::Tensor train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x, torch::Tensor y) {
  opt.zero_grad();
  auto loss = torch::nll_loss(model(x), y);
  loss.backward();
  opt.step();
  return loss;
}
void loop_through_step_helper(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> &xs,
                              torch::Tensor y) {
  std::vector<float> losses;
  for (auto &x : xs) {
    auto loss = train_step(model, opt, x, y);
    losses.push_back(loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item()' on every iteration of the training loop
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: training loop here
  }
}
// Look-alike: an epoch loop around a helper that holds the whole training
// loop: one item() per epoch, not per step.
torch::Tensor train_epoch(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> &xs,
                          torch::Tensor y) {
  auto total = torch::zeros({});
  for (auto &x : xs)
    total += train_step(model, opt, x, y).detach();
  return total;
}
void epochs(Net &model, torch::optim::SGD &opt, std::vector<torch::Tensor> &xs, torch::Tensor y) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto total = train_epoch(model, opt, xs, y);
    std::printf("epoch %d loss %f\n", epoch, total.item<float>());
  }
}
