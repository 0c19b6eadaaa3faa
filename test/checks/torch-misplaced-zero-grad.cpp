// RUN: %check_torch_tidy %s torch-misplaced-zero-grad %t
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using Loader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                torch::data::samplers::RandomSampler>;

// ---- positives -------------------------------------------------------------

void for_loop(Net &model, torch::optim::SGD &optimizer, torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 100; ++i) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    optimizer.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'zero_grad()' between 'backward()' and 'step()' clears the gradients the step needs: the optimizer updates with zero gradients and the backward pass is wasted [torch-misplaced-zero-grad]
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: gradients computed here
    // CHECK-MESSAGES: :[[@LINE+1]]:15: note: the optimizer steps here; zero the gradients before the forward pass or after this step
    optimizer.step();
  }
}

void range_for_over_loader(Net &model, Loader &loader) {
  auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters());
  for (auto &batch : loader) {
    auto loss = torch::nll_loss(model->forward(batch[0].data), batch[0].target);
    loss.backward();
    model->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad()' between 'backward()' and 'step()'
    optimizer->step();
  }
}

void while_and_do(Net &model, torch::optim::SGD *opt, torch::Tensor x) {
  int step = 0;
  while (step++ < 100) {
    model(x).sum().backward();
    opt->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'zero_grad()' between
    opt->step();
  }
  do {
    torch::autograd::backward({model(x).sum()});
    {
      (*opt).zero_grad(); // a bare block is still the same path
      // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'zero_grad()' between
    }
    (*opt).step();
  } while (--step > 0);
}

struct Trainer {
  Net model;
  torch::optim::Adam opt_;
  void train_epoch(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs) {
      model->forward(x).sum().backward();
      opt_.zero_grad();
      // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad()' between
      opt_.step();
    }
  }
};

void in_a_lambda_and_accumulation_branch(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      model(x).sum().backward();
      if ((i + 1) % 4 == 0) {
        opt.zero_grad();
        // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'zero_grad()' between
        opt.step();
      }
    }
  };
  run(3);
}

// The module's zero_grad() clears what the optimizer over its parameters
// needs, also when the parameters were taken into a variable first.
void module_zero_grad_through_params(Net &model, Loader &loader) {
  auto params = model->parameters();
  torch::optim::SGD optimizer(params, torch::optim::SGDOptions(0.1));
  for (auto &batch : loader) {
    torch::nll_loss(model->forward(batch[0].data), batch[0].target).backward();
    model->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad()' between 'backward()' and 'step()'
    optimizer.step();
  }
}

// One training step per call: no loop in the function.
struct StepTrainer {
  Net model;
  torch::optim::Adam opt_;
  void train_step(torch::Tensor x, torch::Tensor y) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    model->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad()' between 'backward()' and 'step()'
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: gradients computed here
    // CHECK-MESSAGES: :[[@LINE+1]]:10: note: the optimizer steps here; zero the gradients before the forward pass or after this step
    opt_.step();
  }
};

// The zeroing at the end of an optimizer closure: the step reads the
// gradients after the closure returns.
void closure_zeroes_last(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.step([&] {
      auto loss = model(x).sum();
      loss.backward();
      opt.zero_grad();
      // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'zero_grad()' between 'backward()' and 'step()'
      // CHECK-MESSAGES: :[[@LINE-3]]:12: note: gradients computed here
      // CHECK-MESSAGES: :[[@LINE-6]]:9: note: the optimizer steps here
      return loss;
    });
  }
}

void closure_in_a_variable(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  auto closure = [&]() -> torch::Tensor {
    auto loss = model(x).sum();
    loss.backward();
    model->zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad()' between 'backward()' and 'step()'
    return loss;
  };
  for (int i = 0; i < 10; ++i)
    opt.step(closure);
}

// ---- negatives -------------------------------------------------------------

void zero_before_forward(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    model(x).sum().backward();
    opt.step();
  }
}

void zero_after_step(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step();
    opt.zero_grad();
  }
}

void accumulation(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    (model(x).sum() / 4).backward();
    if ((i + 1) % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

void gan(Net &gen, Net &disc, torch::optim::Adam &g_opt, torch::optim::Adam &d_opt,
         torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    d_opt.zero_grad();
    disc(x).sum().backward();
    g_opt.zero_grad(); // clears what the discriminator's loss left in the generator
    d_opt.step();
    disc(gen(x)).sum().backward();
    g_opt.step();
  }
}

void gan_modules(Net &gen, Net &disc, torch::Tensor x) {
  torch::optim::Adam g_opt(gen->parameters());
  torch::optim::Adam d_opt(disc->parameters());
  for (int i = 0; i < 10; ++i) {
    disc->zero_grad();
    disc(x).sum().backward();
    gen->zero_grad(); // another model's gradients
    d_opt.step();
    gen->zero_grad();
    disc(gen(x)).sum().backward();
    g_opt.step();
  }
}

void conditional_zero(Net &model, torch::optim::SGD &opt, torch::Tensor x, bool restart) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    if (restart)
      opt.zero_grad(); // a different path
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

void zero_between_steps(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step();
    opt.zero_grad();
    model(x).sum().backward();
    opt.step();
  }
}

// Another optimizer's gradients cleared in a step function.
void gan_step(Net &gen, Net &disc, torch::optim::Adam &g_opt, torch::optim::Adam &d_opt,
              torch::Tensor x) {
  disc(x).sum().backward();
  g_opt.zero_grad();
  d_opt.step();
}

// Gradients of the input read, then cleared: no step after them.
torch::Tensor saliency(Net &model, torch::Tensor x, torch::optim::SGD &opt) {
  x.requires_grad_(true);
  model(x).sum().backward();
  auto map = x.grad().abs();
  model->zero_grad();
  opt.zero_grad();
  return map;
}

// The closure zeroes first: the usual order.
void closure_zeroes_first(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  auto closure = [&]() -> torch::Tensor {
    opt.zero_grad();
    auto loss = model(x).sum();
    loss.backward();
    return loss;
  };
  opt.step(closure);
}

// A lambda that is not a closure of the step.
void callback_lambda(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto probe = [&] {
    model(x).sum().backward();
    opt.zero_grad();
  };
  probe();
  model(x).sum().backward();
  opt.step();
}

// Zeroing under a condition at the end of a closure.
void closure_conditional_zero(Net &model, torch::optim::LBFGS &opt, torch::Tensor x, bool reset) {
  opt.step([&] {
    auto loss = model(x).sum();
    loss.backward();
    if (reset)
      opt.zero_grad();
    return loss;
  });
}
