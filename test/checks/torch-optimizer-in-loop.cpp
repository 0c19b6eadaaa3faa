// RUN: %check_torch_tidy %s torch-optimizer-in-loop %t
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

void for_loop(Net &model, torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 100; ++i) {
    torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: optimizer constructed inside the training loop: its state (momentum, Adam moments, step counts) is thrown away and reallocated every iteration [torch-optimizer-in-loop]
    // CHECK-MESSAGES: :[[@LINE+4]]:15: note: the optimizer steps here
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: construct the optimizer once, before this loop
    optimizer.zero_grad();
    torch::mse_loss(model(x), y).backward();
    optimizer.step();
  }
}

void range_for_in_epoch_loop(Net &model, Loader &loader) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto optimizer = std::make_unique<torch::optim::SGD>(
        // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: optimizer constructed inside the epoch loop: its state (momentum, Adam moments, step counts) is thrown away and reallocated every epoch
        model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    for (auto &batch : loader) {
      optimizer->zero_grad();
      torch::nll_loss(model->forward(batch[0].data), batch[0].target).backward();
      optimizer->step();
    }
  }
}

void while_and_do(Net &model, torch::Tensor x) {
  int step = 0;
  std::shared_ptr<torch::optim::Optimizer> opt;
  while (step++ < 100) {
    opt = std::make_shared<torch::optim::Adam>(model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: optimizer constructed inside the training loop
    opt->zero_grad();
    model(x).sum().backward();
    opt->step();
  }
  do {
    torch::optim::SGD sgd(model->parameters(), 0.01);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: optimizer constructed inside the training loop
    sgd.zero_grad();
    model(x).sum().backward();
    sgd.step();
  } while (--step > 0);
}

struct Trainer {
  Net model;
  std::unique_ptr<torch::optim::Optimizer> opt_;
  void train(const std::vector<torch::Tensor> &xs, int epochs) {
    for (int e = 0; e < epochs; ++e) {
      opt_ = std::make_unique<torch::optim::AdamW>(model->parameters());
      // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: optimizer constructed inside the epoch loop
      for (const auto &x : xs) {
        opt_->zero_grad();
        model->forward(x).sum().backward();
        opt_->step();
      }
    }
  }
};

void in_a_lambda(Net &model, torch::Tensor x) {
  auto run = [&](int n) {
    for (int i = 0; i < n; ++i) {
      torch::optim::RMSprop opt(model->parameters());
      // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: optimizer constructed inside the training loop
      opt.zero_grad();
      model(x).sum().backward();
      opt.step();
    }
  };
  run(3);
}

// A learning rate decayed by epoch: the model is the same, the optimizer state
// restarts every epoch.
double schedule(int epoch);
void learning_rate_by_epoch(Net &model, Loader &loader, double base_lr) {
  for (int epoch = 0; epoch < 90; ++epoch) {
    double lr = base_lr / (1 + epoch / 30);
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(lr).momentum(0.9));
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: optimizer constructed inside the epoch loop
    for (auto &batch : loader) {
      optimizer.zero_grad();
      torch::nll_loss(model->forward(batch[0].data), batch[0].target).backward();
      optimizer.step();
    }
  }
  for (int epoch = 0; epoch < 90; ++epoch) {
    auto adam = std::make_unique<torch::optim::Adam>(model->parameters(),
                                                     torch::optim::AdamOptions(schedule(epoch)));
    // CHECK-MESSAGES: :[[@LINE-2]]:17: warning: optimizer constructed inside the epoch loop
    for (auto &batch : loader) {
      adam->zero_grad();
      model->forward(batch[0].data).sum().backward();
      adam->step();
    }
  }
}

// ---- negatives -------------------------------------------------------------

void built_once(Net &model, torch::Tensor x) {
  torch::optim::Adam optimizer(model->parameters());
  for (int i = 0; i < 100; ++i) {
    optimizer.zero_grad();
    model(x).sum().backward();
    optimizer.step();
  }
}

Net build_model(int width);
void hyperparameter_search(torch::Tensor x) {
  for (int width : {16, 32, 64}) {
    Net model;
    torch::optim::Adam optimizer(model->parameters());
    for (int i = 0; i < 100; ++i) {
      optimizer.zero_grad();
      model(x).sum().backward();
      optimizer.step();
    }
  }
  for (int trial = 0; trial < 3; ++trial) {
    torch::optim::Adam optimizer(build_model(trial)->parameters());
    for (int i = 0; i < 100; ++i) {
      optimizer.zero_grad();
      optimizer.step();
    }
  }
  Net shared;
  for (int trial = 0; trial < 3; ++trial) {
    shared = Net();
    torch::optim::SGD optimizer(shared->parameters(), 0.1);
    for (int i = 0; i < 100; ++i) {
      optimizer.zero_grad();
      shared(x).sum().backward();
      optimizer.step();
    }
  }
}

void learning_rate_sweep(Net &model, torch::Tensor x) {
  for (double lr : {0.1, 0.01}) {
    torch::optim::SGD optimizer(model->parameters(), lr);
    for (int i = 0; i < 100; ++i) {
      optimizer.zero_grad();
      model(x).sum().backward();
      optimizer.step();
    }
  }
}

void never_stepped_in_the_loop(std::vector<Net> &models,
                               std::vector<std::unique_ptr<torch::optim::Optimizer>> &opts) {
  for (auto &m : models)
    opts.push_back(std::make_unique<torch::optim::Adam>(m->parameters()));
  for (auto &m : models) {
    torch::optim::SGD probe(m->parameters(), 0.1); // built, not stepped
  }
}
