// RUN: %check_torch_tidy %s torch-missing-zero-grad %t
// Training loops in templates: a loop templated on the data loader and the
// members of a `Trainer<Model>` class template are analysed through their
// instantiations (types resolved); a finding in a template is reported once,
// however many instantiations share it.
#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct MlpImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Mlp);

using RandomLoader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                      torch::data::samplers::RandomSampler>;
using SequentialLoader = torch::data::StatelessDataLoader<torch::data::datasets::MNIST,
                                                          torch::data::samplers::SequentialSampler>;

// ---- positives ----------------------------------------------------------------

// As in LibTorch's own examples: the loop is templated on the DataLoader.
template <typename DataLoader>
void train_epoch(Net &model, torch::optim::SGD &optimizer, DataLoader &loader) {
  for (auto &batch : loader) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    auto out = model->forward(batch[0].data);
    auto loss = torch::nll_loss(out, batch[0].target);
    loss.backward();
    optimizer.step();
  }
}
// CHECK-FIXES: {{^}}  for (auto &batch : loader) {{{$}}
// CHECK-FIXES: {{^}}    optimizer.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^}}    auto out = model->forward(batch[0].data);{{$}}

template <typename Model> struct Trainer {
  Model model;
  torch::optim::SGD optimizer;
  explicit Trainer(Model m) : model(m), optimizer(model->parameters(), 0.1) {}
  void fit(torch::Tensor x, torch::Tensor y) {
    for (int i = 0; i < 10; ++i) {
      // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: training loop never zeroes the gradients
      auto loss = torch::mse_loss(model->forward(x), y);
      loss.backward();
      optimizer.step();
    }
  }
  // Defined out of line below.
  void fit_twice(torch::Tensor x, torch::Tensor y);
  // A look-alike member: zeroes its gradients.
  void fit_clean(torch::Tensor x, torch::Tensor y) {
    for (int i = 0; i < 10; ++i) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(x), y);
      loss.backward();
      optimizer.step();
    }
  }
};
// CHECK-FIXES: {{^}}    for (int i = 0; i < 10; ++i) {{{$}}
// CHECK-FIXES: {{^}}      optimizer.zero_grad();{{$}}
// CHECK-FIXES-NEXT: {{^}}      auto loss = torch::mse_loss(model->forward(x), y);{{$}}

template <typename Model> void Trainer<Model>::fit_twice(torch::Tensor x, torch::Tensor y) {
  for (int i = 0; i < 2; ++i) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: training loop never zeroes the gradients
    model->forward(x).sum().backward();
    optimizer.step();
  }
}
// CHECK-FIXES: {{^}}  for (int i = 0; i < 2; ++i) {{{$}}
// CHECK-FIXES: {{^}}    optimizer.zero_grad();{{$}}

void run(Net net, Mlp mlp, torch::optim::SGD &optimizer, RandomLoader &random,
         SequentialLoader &sequential, torch::Tensor x, torch::Tensor y) {
  train_epoch(net, optimizer, random);
  train_epoch(net, optimizer, sequential);
  Trainer<Net> a(net);
  Trainer<Mlp> b(mlp);
  a.fit(x, y);
  b.fit(x, y);
  a.fit_twice(x, y);
  a.fit_clean(x, y);
  b.fit_clean(x, y);
}

// ---- look-alikes ----------------------------------------------------------------

// Never instantiated: the pattern alone is analysed, and its dependent calls
// are not known to be backward passes.
template <typename Model> struct Unused {
  Model model;
  torch::optim::SGD optimizer;
  void fit(torch::Tensor x) {
    for (int i = 0; i < 10; ++i) {
      model->forward(x).sum().backward();
      optimizer.step();
    }
  }
};
