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
