// RUN: %check_torch_tidy %s torch-module-to-device-in-loop %t
#include <torch/torch.h>
#include <torch/script.h>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

using Loader = std::unique_ptr<
    torch::data::StatelessDataLoader<torch::data::datasets::MNIST, torch::data::samplers::RandomSampler>>;

void train(Net &model, torch::optim::SGD &opt, Loader &loader, torch::Device device) {
  for (auto &batch : *loader) {
    model->to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: module 'model' is moved with 'to' on every iteration of a loop: each call walks all its parameters and buffers, and copies them whenever the device or type differs [torch-module-to-device-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here; move the module once before it
    auto data = batch.front().data.to(device); // a tensor: fine
    opt.zero_grad();
    model->forward(data).sum().backward();
    opt.step();
  }
}

void counted(NetImpl &impl, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    impl.to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: module 'impl' is moved with 'to' on every iteration
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    impl.forward(x);
  }
}

void while_and_do(std::shared_ptr<NetImpl> net, torch::jit::Module &scripted, torch::Tensor x) {
  int i = 0;
  while (i++ < 10) {
    net->to(torch::kFloat);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: module 'net' is moved with 'to'
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    net->forward(x);
  }
  do {
    scripted.to(torch::Device(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module 'scripted' is moved with 'to'
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
  } while (i-- > 0);
}

struct Trainer {
  Net model;
  torch::Device device{torch::kCUDA};
  void epoch(const std::vector<torch::Tensor> &batches) {
    for (const auto &x : batches) {
      model->to(device);
      // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: module 'model' is moved with 'to'
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop is here
      model->forward(x);
    }
    auto step = [this](const torch::Tensor &x) {
      for (int i = 0; i < 2; ++i) {
        this->model->to(device);
        // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: module 'model' is moved with 'to'
        // CHECK-MESSAGES: :[[@LINE-3]]:7: note: the loop is here
        model(x);
      }
    };
    step(batches.front());
  }
};

// A helper that moves the module it is given, on every call, called on every
// iteration: a float32 round trip around a sampler (the module's weights
// converted twice per call).
torch::Tensor kick(Net model, torch::Tensor x) {
  model->to(torch::kFloat32);
  auto y = model->forward(x.to(torch::kFloat32));
  model->to(torch::kFloat64);
  return y;
}
struct Sampler {
  Net net;
  void to_gpu() { net->to(torch::kCUDA); }
  void sample(torch::Tensor x, int steps) {
    for (int i = 0; i < steps; ++i) {
      auto y = kick(net, x);
      // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'kick' moves module 'net' with 'to' on every call, and this loop calls it on every iteration: each move walks all its parameters and buffers, and copies them whenever the device or type differs [torch-module-to-device-in-loop]
      // CHECK-MESSAGES: :[[@LINE-12]]:10: note: the module is moved here
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: the loop is here; move the module once before it
      to_gpu();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'to_gpu' moves module 'net' with 'to' on every call
      // CHECK-MESSAGES: :[[@LINE-9]]:24: note: the module is moved here
      // CHECK-MESSAGES: :[[@LINE-8]]:5: note: the loop is here
    }
  }
};

// ---- must not flag ----------------------------------------------------------

void once_before_the_loop(Net &model, Loader &loader, torch::Device device) {
  model->to(device);
  for (auto &batch : *loader) {
    auto x = batch.front().data.to(device);
    auto y = batch.front().target.cuda();
    model->forward(x.cpu());
  }
}

void ensemble(std::vector<Net> &models, torch::Device device) {
  for (auto &m : models)
    m->to(device);
  for (size_t i = 0; i < models.size(); ++i)
    models[i]->to(device);
}

void fresh_module_each_trial(torch::Device device, torch::Tensor x) {
  Net model;
  for (int trial = 0; trial < 5; ++trial) {
    model = Net();
    model->to(device);
    model->forward(x);
  }
  for (int trial = 0; trial < 5; ++trial) {
    Net candidate;
    candidate->to(device);
    candidate->forward(x);
  }
}

void one_device_after_another(Net &model, const std::vector<torch::Device> &devices,
                              torch::Tensor x) {
  for (const auto &d : devices) {
    model->to(d);
    model->forward(x.to(d));
  }
  torch::Device current(torch::kCPU);
  for (int i = 0; i < 2; ++i) {
    current = i ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    model->to(current);
  }
}

void lambda_in_loop(Net &model, torch::Device device) {
  for (int i = 0; i < 3; ++i) {
    auto move = [&] { model->to(device); };
    (void)move;
  }
}

struct NotAModule {
  void to(torch::Device);
};
void not_a_module(NotAModule &thing, torch::Device device) {
  for (int i = 0; i < 3; ++i)
    thing.to(device);
}

// Helpers whose move depends on what each call is given, that move only
// sometimes, or that are handed a different module each time.
void move_to(Net model, torch::Device device) { model->to(device); }
void maybe_move(Net model, bool gpu) {
  if (gpu)
    model->to(torch::kCUDA);
}
void helper_lookalikes(Net model, std::vector<Net> &models, std::vector<torch::Device> &devices) {
  for (size_t i = 0; i < devices.size(); ++i) {
    move_to(model, devices[i]);
    maybe_move(model, i == 0);
    kick(models[i], torch::ones({1}));
  }
  kick(model, torch::ones({1}));
}
