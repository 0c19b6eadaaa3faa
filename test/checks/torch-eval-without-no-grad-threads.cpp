// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
#include <torch/torch.h>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

// Stand-ins for the thread pools of real code (progschj's ThreadPool,
// BS::thread_pool, boost::asio::thread_pool), LibTorch's at::launch (it carries
// the caller's grad mode to the task) and an executor that runs tasks inline.
class ThreadPool {
public:
  template <class F> std::future<void> enqueue(F &&f) { return std::async(std::launch::deferred, f); }
  template <class F> std::future<void> commit(F &&f) { return std::async(std::launch::deferred, f); }
};
namespace BS {
class thread_pool {
public:
  template <class F> void detach_task(F &&task) { task(); }
};
} // namespace BS
namespace boost::asio {
class thread_pool {
public:
  explicit thread_pool(int threads);
  void join();
};
template <class Executor, class F> void post(Executor &ex, F &&f) { f(); }
} // namespace boost::asio
namespace at {
void launch(std::function<void()> func);
} // namespace at
struct InlineExecutor {
  void add(std::function<void()> f);
};
struct Trainer {
  void run(std::function<void()> step);
};

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

// A task given to a thread pool runs on one of the pool's threads.
std::vector<float> predict_all(Net &net, ThreadPool &pool, const std::vector<torch::Tensor> &xs) {
  std::vector<float> out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    pool.enqueue([&, i] { out[i] = net->forward(xs[i]).item<float>(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: forward pass on a thread started by evaluation code
  // CHECK-MESSAGES: :[[@LINE-5]]:20: note: 'predict_all' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-3]]:18: note: the thread body starts here
  return out;
}
// CHECK-FIXES: {{^}}    pool.enqueue([&, i] { torch::NoGradGuard no_grad; out[i] = net->forward(xs[i]).item<float>(); });{{$}}

void serve_pool(Net &net, std::unique_ptr<BS::thread_pool> &pool, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  pool->detach_task([&net, x] {
    net->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: forward pass on a thread started by evaluation code
    // CHECK-MESSAGES: :[[@LINE-4]]:22: note: this guard covers only the thread that declares it
    // CHECK-MESSAGES: :[[@LINE-4]]:21: note: the thread body starts here
  });
}
// CHECK-FIXES: {{^}}  pool->detach_task([&net, x] {{[{]}}{{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::NoGradGuard no_grad_;{{$}}

void infer_asio(Net &net, torch::Tensor x) {
  boost::asio::thread_pool pool(4);
  boost::asio::post(pool, [&] { net->forward(x); });
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: forward pass on a thread started by evaluation code
  // CHECK-MESSAGES: :[[@LINE-4]]:6: note: 'infer_asio' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-3]]:27: note: the thread body starts here
  pool.join();
}
// CHECK-FIXES: {{^}}  boost::asio::post(pool, [&] { torch::NoGradGuard no_grad; net->forward(x); });{{$}}

// A pool whose submit member is named commit (a common hand-written ThreadPool).
float evaluate_commit(Net &net, ThreadPool &pool, torch::Tensor x) {
  auto f = pool.commit([&] { net->forward(x); });
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: forward pass on a thread started by evaluation code
  // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'evaluate_commit' is evaluation code by its name
  // CHECK-MESSAGES: :[[@LINE-3]]:24: note: the thread body starts here
  f.get();
  return 0;
}
// CHECK-FIXES: {{^}}  auto f = pool.commit([&] { torch::NoGradGuard no_grad; net->forward(x); });{{$}}

// --- Look-alikes that must stay silent --------------------------------------------

// at::launch carries the caller's grad mode (LibTorch's ThreadLocalState) to the task.
void evaluate_launch(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  at::launch([&] { net->forward(x); });
}

// An executor that is not a thread pool by its name, and a member named like a
// submit on a class that is not a pool: the lambda runs on the calling thread.
void evaluate_inline(Net &net, InlineExecutor &ex, Trainer &trainer, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  ex.add([&] { net->forward(x); });
  trainer.run([&] { net->forward(x); });
}

// The pool's task holds its own guard, or trains.
void serve_pool_guarded(Net &net, ThreadPool &pool, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  pool.enqueue([&] {
    torch::NoGradGuard task_guard;
    net->forward(x);
  });
  pool.enqueue([&] { net->forward(x).sum().backward(); });
}


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
