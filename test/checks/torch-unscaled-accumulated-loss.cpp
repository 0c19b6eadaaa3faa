// RUN: %check_torch_tidy %s torch-unscaled-accumulated-loss %t
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

void for_loop(Net &model, torch::optim::SGD &optimizer, torch::Tensor x, torch::Tensor y,
              int accum_steps) {
  for (int i = 0; i < 100; ++i) {
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: loss is not divided by the accumulation period: the gradients of every backward() between two steps add up, so each step is as large as a learning rate that many times higher [torch-unscaled-accumulated-loss]
    // CHECK-MESSAGES: :[[@LINE+1]]:19: note: the optimizer steps once every 'accum_steps' iterations here
    if ((i + 1) % accum_steps == 0) {
      optimizer.step();
      optimizer.zero_grad();
    }
  }
}
// CHECK-FIXES: {{^    }}(loss / accum_steps).backward();{{$}}

void range_for_over_loader(Net &model, Loader &loader) {
  constexpr int kAccumulate = 8;
  auto optimizer = std::make_unique<torch::optim::Adam>(model->parameters());
  int64_t step = 0;
  for (auto &batch : loader) {
    torch::nll_loss(model->forward(batch[0].data), batch[0].target).backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:69: warning: loss is not divided by the accumulation period
    if (++step % kAccumulate == 0) {
      optimizer->step();
      optimizer->zero_grad();
    }
  }
}
// CHECK-FIXES: {{^    }}(torch::nll_loss(model->forward(batch[0].data), batch[0].target) / kAccumulate).backward();{{$}}

void while_with_counter(Net &model, torch::optim::SGD *opt, torch::Tensor x, size_t every) {
  size_t count = 0;
  int i = 0;
  while (i++ < 100) {
    auto loss = model(x).sum();
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: loss is not divided by the accumulation period
    if (++count == every) {
      opt->step();
      model->zero_grad();
      count = 0;
    }
  }
}
// CHECK-FIXES: {{^    }}(loss / static_cast<double>(every)).backward();{{$}}

struct Trainer {
  Net model;
  torch::optim::Adam opt_;
  int accumulate_ = 4;
  void train_epoch(const std::vector<torch::Tensor> &xs) {
    int i = 0;
    do {
      auto loss = model->forward(xs[i]).sum();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: loss is not divided by the accumulation period
      if (i % accumulate_ == accumulate_ - 1) {
        opt_.step();
        opt_.zero_grad();
      }
    } while (++i < 100);
  }
};
// CHECK-FIXES: {{^      }}(loss / accumulate_).backward();{{$}}

void in_a_lambda(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto loss = model(x).sum() + x.sum();
      loss.backward();
      // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: loss is not divided by the accumulation period
      if ((i + 1) % 4 == 0) {
        opt.step();
        opt.zero_grad();
      }
    }
  };
  run(3);
}
// CHECK-FIXES: {{^      }}(loss / 4).backward();{{$}}

// ---- negatives -------------------------------------------------------------

void divided(Net &model, torch::optim::SGD &opt, torch::Tensor x, int K) {
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum() / K;
    loss.backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (int i = 0; i < 100; ++i) {
    (model(x).sum() / K).backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum() * (1.0 / K);
    loss.backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum().div(K);
    loss.backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum();
    loss /= K;
    loss.backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  const double scale = 1.0 / K;
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum();
    (loss * scale).backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
  for (int i = 0; i < 100; ++i) {
    auto loss = model(x).sum() / 4.0; // the constant K is
    loss.backward();
    if ((i + 1) % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

torch::Tensor compute_loss(Net &model, torch::Tensor x, int accum);
void scaled_in_helper(Net &model, torch::optim::SGD &opt, torch::Tensor x, int K) {
  for (int i = 0; i < 100; ++i) {
    auto loss = compute_loss(model, x, K);
    loss.backward();
    if ((i + 1) % K == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

void step_every_iteration(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    model(x).sum().backward();
    opt.step();
    if (i % 100 == 0)
      opt.zero_grad();
  }
}

void zeroed_every_iteration(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    opt.zero_grad();
    model(x).sum().backward();
    if (i % 2 == 0) { // skips steps: not accumulation
      opt.step();
      opt.zero_grad();
    }
  }
}

void loss_from_outside(Net &model, torch::optim::SGD &opt, torch::Tensor loss) {
  for (int i = 0; i < 100; ++i) {
    loss.backward(); // where it comes from is not visible
    if ((i + 1) % 4 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

void period_one(Net &model, torch::optim::SGD &opt, torch::Tensor x) {
  for (int i = 0; i < 100; ++i) {
    model(x).sum().backward();
    if ((i + 1) % 1 == 0) {
      opt.step();
      opt.zero_grad();
    }
  }
}

void not_a_counter(Net &model, torch::optim::SGD &opt, torch::Tensor x, bool ready) {
  for (int i = 0; i < 100; ++i) {
    model(x).sum().backward();
    if (ready) {
      opt.step();
      opt.zero_grad();
    }
  }
}
