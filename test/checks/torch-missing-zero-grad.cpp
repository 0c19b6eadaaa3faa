// RUN: %check_torch_tidy %s torch-missing-zero-grad %t
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
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients: each backward() adds to the gradients of all previous iterations, so every step() applies their sum [torch-missing-zero-grad]
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    optimizer.step();
  }
}
// CHECK-FIXES: for (int i = 0; i < 100; ++i) {
// CHECK-FIXES: {{^    }}optimizer.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^    }}auto loss = torch::mse_loss(model(x), y);

void range_for_over_loader(Net &model, Loader &loader) {
  auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters());
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (auto &batch : loader) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      auto out = model->forward(batch[0].data);
      auto loss = torch::nll_loss(out, batch[0].target);
      loss.backward();
      optimizer->step();
    }
  }
}
// CHECK-FIXES: for (auto &batch : loader) {
// CHECK-FIXES: {{^      }}optimizer->zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^      }}auto out = model->forward(batch[0].data);

void zeroed_once_per_epoch(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    opt.zero_grad();
    for (int i = 0; i < 10; ++i) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      // CHECK-MESSAGES: :[[@LINE+3]]:22: note: gradients accumulate here
      // CHECK-MESSAGES: :[[@LINE+3]]:11: note: the optimizer steps here
      // CHECK-MESSAGES: :[[@LINE-5]]:9: note: gradients are zeroed here only once per iteration of the enclosing loop
      model(x).sum().backward();
      opt.step();
    }
  }
}
// CHECK-FIXES: for (int i = 0; i < 10; ++i) {
// CHECK-FIXES: {{^      }}opt.zero_grad();{{$}}

void while_and_do(Net &model, torch::optim::SGD *opt, torch::Tensor x) {
  int step = 0;
  while (step < 100) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    model(x).sum().backward();
    opt->step();
    ++step;
  }
  do {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    torch::autograd::backward({model(x).sum()});
    (*opt).step();
  } while (--step > 0);
}
// CHECK-FIXES: while (step < 100) {
// CHECK-FIXES: {{^    }}opt->zero_grad();{{$}}
// CHECK-FIXES: do {
// CHECK-FIXES: {{^    }}(*opt).zero_grad();{{$}}

struct Trainer {
  Net model;
  torch::optim::Adam opt_;
  std::shared_ptr<torch::optim::SGD> sgd;
  void train_epoch(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      model->forward(x).sum().backward();
      opt_.step();
    }
    for (const auto &x : xs) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      model->forward(x).sum().backward();
      this->sgd->step();
    }
  }
};
// CHECK-FIXES: for (const auto &x : xs) {
// CHECK-FIXES: {{^      }}opt_.zero_grad();{{$}}
// CHECK-FIXES: for (const auto &x : xs) {
// CHECK-FIXES: {{^      }}this->sgd->zero_grad();{{$}}

void in_a_lambda(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      model(x).sum().backward();
      opt.step();
    }
  };
  run(3);
}
// CHECK-FIXES: {{^      }}opt.zero_grad();{{$}}

void two_optimizers(Net &gen, Net &disc, torch::optim::Adam &g_opt, torch::optim::Adam &d_opt,
                    torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    disc(x).sum().backward();
    d_opt.step();
    disc(gen(x)).sum().backward();
    g_opt.step();
  }
}
// CHECK-FIXES: {{^    }}d_opt.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^    }}g_opt.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^    }}disc(x).sum().backward();

void optimizer_declared_in_loop(Net &model, std::vector<torch::Tensor> xs) {
  for (auto &x : xs) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix-it: the optimizer cannot be named at the start of the loop body
    torch::optim::SGD local(model->parameters(), torch::optim::SGDOptions(0.1));
    model(x).sum().backward();
    local.step();
  }
}

// ---- negatives -------------------------------------------------------------

void zeroed_by_optimizer(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    opt.zero_grad();
    model(x).sum().backward();
    opt.step();
  }
}

void zeroed_by_module(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step();
    model->zero_grad();
  }
}

void zeroed_by_hand(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step();
    for (auto &p : model->parameters())
      p.grad().zero_();
  }
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step();
    for (auto &p : model->parameters())
      p.mutable_grad().reset();
  }
  for (int i = 0; i < 10; ++i) {
    auto grads = torch::autograd::grad({model(x).sum()}, model->parameters());
    auto params = model->parameters();
    for (size_t k = 0; k < params.size(); ++k)
      params[k].grad().copy_(grads[k]);
    opt.step();
  }
  for (int i = 0; i < 10; ++i) {
    for (auto &p : model->parameters())
      p.mutable_grad() = torch::Tensor();
    model(x).sum().backward();
    opt.step();
  }
}

void zero_gradients(Net &model);
void zeroed_by_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    zero_gradients(model);
    model(x).sum().backward();
    opt.step();
  }
}

void train_step(torch::optim::Optimizer &opt);
void optimizer_handed_to_a_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    train_step(opt);
    opt.step();
  }
}

void accumulation_zeroes_in_branch(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  const int accum = 4;
  for (int i = 0; i < 100; ++i) {
    (model(x).sum() / accum).backward();
    if ((i + 1) % accum == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

void lbfgs_closure(Net &model, torch::optim::LBFGS &opt, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    auto closure = [&] {
      opt.zero_grad();
      auto loss = model(x).sum();
      loss.backward();
      return loss;
    };
    opt.step(closure);
  }
}

void lbfgs_outer_closure(Net &model, torch::optim::LBFGS &opt,
                         torch::optim::Optimizer::LossClosure closure, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    model(x).sum().backward();
    opt.step(closure);
  }
}

void no_step_in_loop(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  for (int i = 0; i < 4; ++i)
    model(x).sum().backward(); // whole-batch accumulation, one step after
  opt.step();
}

void grad_only(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 4; ++i) {
    auto grads = torch::autograd::grad({model(x).sum()}, model->parameters());
    opt.step();
  }
}

void epoch_level_training_loop(Net &model, torch::optim::SGD &opt,
                               std::vector<torch::Tensor> xs) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (auto &x : xs)
      model(x).sum().backward();
    opt.step();
    opt.zero_grad();
  }
}

struct Runner {
  Net model;
  torch::optim::SGD opt;
  void resetGrads();
  void fit(torch::Tensor x) {
    for (int i = 0; i < 10; ++i) {
      resetGrads();
      model(x).sum().backward();
      opt.step();
    }
  }
};
