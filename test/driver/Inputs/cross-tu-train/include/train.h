#pragma once
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// steps.cpp
void train_step(Net &model, torch::optim::SGD &opt, torch::Tensor x);
void train_step_zeroing(Net &model, torch::optim::SGD &opt, torch::Tensor x);
void train_step_maybe(Net &model, torch::optim::SGD &opt, torch::Tensor x, bool update);
// prepare.cpp
void prepare(torch::optim::SGD &opt);
// broken.cpp (does not compile: no summary)
void train_step_broken(Net &model, torch::optim::SGD &opt, torch::Tensor x);

struct Learner {
  virtual ~Learner() = default;
  virtual void learn(torch::Tensor x) = 0;
};

// meter.cpp; Reporter::result in report.cpp, Buffer::flush in broken.cpp.
struct Meter {
  void record(torch::Tensor loss);
  void record_detached(torch::Tensor loss);
  torch::Tensor total_;
};
struct Reporter {
  void add(torch::Tensor loss);
  torch::Tensor result();
  torch::Tensor sum_;
};
struct Buffer {
  void push(torch::Tensor loss);
  void flush();
  torch::Tensor acc_;
};
