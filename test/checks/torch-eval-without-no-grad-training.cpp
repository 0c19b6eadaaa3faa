// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
// Rule (e): in training code (a function that runs a backward pass), a
// forward pass whose result, and every local computed from it, is only read
// (item(), printing, comparisons): no backward pass, result, member,
// parameter, container or function that may keep it gets any of it.
#include <torch/torch.h>
#include <iostream>
#include <utility>
#include <vector>

struct Model {
  torch::nn::Linear net{nullptr};
  torch::Tensor loss_function(const torch::Tensor &output, const torch::Tensor &labels) const {
    return torch::mse_loss(output, labels);
  }
  void train(int epochs, const std::vector<std::pair<torch::Tensor, torch::Tensor>> &batches,
             const torch::Tensor &test_x, const torch::Tensor &test_y, torch::optim::SGD &opt);
  void train_printing(const torch::Tensor &x, const torch::Tensor &y, torch::optim::SGD &opt);
};

// ---- positives ---------------------------------------------------------------

// A test-set forward pass every few epochs inside the training function: its
// loss is kept in a local of the function and printed.
void Model::train(int epochs, const std::vector<std::pair<torch::Tensor, torch::Tensor>> &batches,
                  const torch::Tensor &test_x, const torch::Tensor &test_y,
                  torch::optim::SGD &opt) {
  torch::Tensor avg_test_loss = torch::zeros({1});
  for (int epoch = 0; epoch < epochs; ++epoch) {
    for (const auto &batch : batches) {
      opt.zero_grad();
      torch::Tensor output = net->forward(batch.first);
      torch::Tensor loss = loss_function(output, batch.second);
      loss.backward();
      opt.step();
    }
    if (epoch % 10 == 0) {
      torch::Tensor test_output = net->forward(test_x);
      // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: forward pass runs with autograd enabled in training code, but nothing computed from its result reaches a backward pass: its activations and graph are kept for nothing; hold a 'torch::NoGradGuard' while it runs [torch-eval-without-no-grad]
      // CHECK-MESSAGES: :[[@LINE-2]]:21: note: 'test_output' and what is computed from it are only read (item(), printing, comparisons): no backward pass, result or storage outside the function's locals gets them
      torch::Tensor test_loss = loss_function(test_output, test_y);
      avg_test_loss = test_loss / test_x.size(0);
    }
    std::cout << avg_test_loss.item<double>() << std::endl;
  }
}
// CHECK-FIXES: {{^}}    if (epoch % 10 == 0) {{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad;{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::Tensor test_output = net->forward(test_x);{{$}}

// A target network's forward pass read through detach() only; the rest of
// the block trains: no fix-it (a guard there would cover the training too).
void dqn_update(torch::nn::Linear &q, torch::nn::Linear &target, const torch::Tensor &s,
                const torch::Tensor &next_s, const torch::Tensor &r, torch::optim::SGD &opt) {
  torch::Tensor next_q = target->forward(next_s);
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: forward pass runs with autograd enabled in training code
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: 'next_q' and what is computed from it are only read
  torch::Tensor y = r + 0.99 * next_q.detach();
  torch::Tensor loss = torch::mse_loss(q->forward(s), y);
  opt.zero_grad();
  loss.backward();
  opt.step();
}

// ---- look-alikes -------------------------------------------------------------

// The training forward pass: its loss is back-propagated, through a member
// wrapping the criterion, a loss module, a LibTorch loss.
void Model::train_printing(const torch::Tensor &x, const torch::Tensor &y, torch::optim::SGD &opt) {
  torch::Tensor out = net->forward(x);
  std::cout << out.mean().item<float>() << std::endl;
  torch::Tensor loss = loss_function(out, y);
  loss.backward();
  opt.step();
}
void with_loss_module(torch::nn::Linear &m, torch::nn::MSELoss &criterion, const torch::Tensor &x,
                      const torch::Tensor &y) {
  torch::Tensor out = m->forward(x);
  torch::Tensor loss = criterion(out, y);
  loss.backward();
}

// Under a guard already.
void guarded_test(torch::nn::Linear &m, const torch::Tensor &x, const torch::Tensor &tx) {
  m->forward(x).sum().backward();
  torch::NoGradGuard no_grad;
  torch::Tensor test_out = m->forward(tx);
  std::cout << test_out.sum().item<float>() << std::endl;
}

// The value leaves: returned, stored in a container or a member, handed to a
// function that may keep it or that back-propagates.
torch::Tensor returned(torch::nn::Linear &m, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = m->forward(x);
  return out * 2;
}
std::vector<torch::Tensor> kept;
void stored(torch::nn::Linear &m, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = m->forward(x);
  kept.push_back(out);
}
struct Holder {
  torch::Tensor last;
  void remember(torch::nn::Linear &m, const torch::Tensor &x) {
    m->forward(x).sum().backward();
    torch::Tensor out = m->forward(x);
    last = out;
  }
};
void consume(const torch::Tensor &t);
void handed(torch::nn::Linear &m, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = m->forward(x);
  consume(out);
}
void backprop(const torch::Tensor &t) { t.sum().backward(); }
void handed_to_training(torch::nn::Linear &m, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = m->forward(x);
  backprop(out);
}

// A GAN step: the generator's output is read detached by the discriminator's
// step and back-propagated through by the generator's.
void gan_step(torch::nn::Linear &g, torch::nn::Linear &d, const torch::Tensor &z) {
  torch::Tensor fake = g->forward(z);
  torch::Tensor d_loss = d->forward(fake.detach()).mean();
  d_loss.backward();
  torch::Tensor g_loss = -d->forward(fake).mean();
  g_loss.backward();
}

// Inside a lambda (an LBFGS closure): the lambda's own.
void closure(torch::nn::Linear &m, const torch::Tensor &x, torch::optim::SGD &opt) {
  auto step = [&] {
    torch::Tensor out = m->forward(x);
    std::cout << out.sum().item<float>() << std::endl;
    return out.sum();
  };
  step().backward();
}

// Shapes read from it are reads too; a class of the user's built from it may
// keep it.
void shape_read(torch::nn::Linear &m, torch::nn::Linear &probe, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = probe->forward(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: forward pass runs with autograd enabled in training code
  // CHECK-MESSAGES: :[[@LINE-2]]:17: note: 'out' and what is computed from it are only read
  std::cout << out.size(0) << " " << out.dim() << std::endl;
}
struct Keeper {
  explicit Keeper(const torch::Tensor &t);
};
void user_class_built(torch::nn::Linear &m, const torch::Tensor &x) {
  m->forward(x).sum().backward();
  torch::Tensor out = m->forward(x);
  Keeper k(out);
}
