// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
#include <torch/torch.h>
#include <future>
#include <thread>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// --- Positives: grad mode is thread-local ---------------------------------------

// The guard of the spawning thread does not cover the worker.
void serve_batches(Net &net, const std::vector<torch::Tensor> &batches) {
  torch::NoGradGuard no_grad;
  std::vector<std::thread> workers;
  for (const auto &x : batches)
    workers.emplace_back([&net, x] {
      auto y = net->forward(x);
      // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: forward pass on a thread started by evaluation code runs with autograd enabled: grad mode is thread-local, so the spawning thread's guard does not cover it; hold a 'torch::NoGradGuard' in the thread body [torch-eval-without-no-grad]
      // CHECK-MESSAGES: :[[@LINE-6]]:22: note: this guard covers only the thread that declares it
      // CHECK-MESSAGES: :[[@LINE-4]]:26: note: the thread body starts here
    });
  for (auto &w : workers)
    w.join();
}
// CHECK-FIXES: {{^}}    workers.emplace_back([&net, x] {{[{]}}{{$}}
// CHECK-FIXES-NEXT: {{^}}      torch::NoGradGuard no_grad_;{{$}}
// CHECK-FIXES-NEXT: {{^}}      auto y = net->forward(x);{{$}}

// std::async in evaluation code (by its name), and std::thread with a body on one line.
float evaluate(Net &net, torch::Tensor a, torch::Tensor b) {
  auto fa = std::async(std::launch::async, [&] { return net->forward(a).sum().item<float>(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:62: warning: forward pass on a thread started by evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'evaluate' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-3]]:44: note: the thread body starts here
  float rb = 0;
  std::thread t([&] { rb = net->forward(b).sum().item<float>(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: forward pass on a thread started by evaluation code
  // CHECK-MESSAGES: :[[@LINE-8]]:7: note: 'evaluate' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-3]]:17: note: the thread body starts here
  t.join();
  return fa.get() + rb;
}
// CHECK-FIXES: {{^}}  auto fa = std::async(std::launch::async, [&] { torch::NoGradGuard no_grad; return net->forward(a).sum().item<float>(); });{{$}}
// CHECK-FIXES: {{^}}  std::thread t([&] { torch::NoGradGuard no_grad; rb = net->forward(b).sum().item<float>(); });{{$}}

// --- Look-alikes that must stay silent --------------------------------------------

// The thread body holds its own guard.
void serve_guarded(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  std::thread t([&] {
    c10::InferenceMode guard;
    net->forward(x);
  });
  t.join();
}

// The thread trains (backward in its body).
void train_async(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto f = std::async(std::launch::async, [&] { net->forward(x).sum().backward(); });
  f.get();
}

// Not evaluation code and no guard: a training program's data worker.
void prefetch(Net &net, torch::Tensor x) {
  std::thread t([&] { net->forward(x); });
  t.join();
}

// A lambda that is not a thread body runs on the guarded thread.
void run_inline(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto f = [&] { return net->forward(x); };
  f();
}

// std::launch::deferred runs the task on the thread that calls get(): the
// spawning thread's guard covers it.
float evaluate_deferred(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto f = std::async(std::launch::deferred, [&] { return net->forward(x).sum().item<float>(); });
  return f.get();
}
