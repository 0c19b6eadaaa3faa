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

// A pool as the MCTS self-play programs write it (alpha-zero-gomoku and the
// projects derived from it): the constructor starts the workers, commit()
// binds the callable, run_task() takes a stored callable.
class SearchThreadPool {
public:
  explicit SearchThreadPool(unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      workers.emplace_back([this] {
        while (running) {
          std::function<void()> task = tasks.back();
          tasks.pop_back();
          task();
        }
      });
  }
  template <class F, class... Args> std::future<void> commit(F &&f, Args &&...args) {
    auto task = std::make_shared<std::packaged_task<void()>>(std::bind(std::forward<F>(f), std::forward<Args>(args)...));
    tasks.emplace_back([task] { (*task)(); });
    return task->get_future();
  }
  void run_task(std::function<void()> f);

private:
  std::vector<std::thread> workers;
  std::vector<std::function<void()>> tasks;
  bool running = true;
};

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

// Shapes of public self-play and serving code that submits work to a pool
// (the rule follows a lambda written at the submit, nothing else):
// the task is a member bound with std::bind; the lambda calls a helper that
// holds its own guard; the lambda is stored and submitted by name; the pool's
// own worker loop (a std::thread body without a forward pass).
struct Evaluator {
  Net net;
  SearchThreadPool *pool;
  std::vector<float> infer(torch::Tensor x) {
    torch::AutoGradMode enable_grad(false);
    return {net->forward(x).item<float>()};
  }
  void simulate(torch::Tensor x) { infer(x); }
  void evaluate_bound(torch::Tensor x) {
    torch::NoGradGuard no_grad;
    pool->commit(std::bind(&Evaluator::simulate, this, x)).wait();
  }
  void evaluate_through_helper(torch::Tensor x) {
    torch::NoGradGuard no_grad;
    pool->commit([this, x] { infer(x); }).wait();
  }
  void evaluate_stored(torch::Tensor x) {
    torch::NoGradGuard no_grad;
    auto fn = [this, x] { net->forward(x); };
    pool->run_task(fn);
  }
};

// A training step that fans a layer's helper out over a pool (no forward pass
// in the task, no guard anywhere).
struct GraphLayerImpl : torch::nn::Module {
  torch::Tensor aggregate(int node, torch::Tensor feature);
  torch::Tensor process_batch(const std::vector<int> &nodes, torch::Tensor feature) {
    ThreadPool pool;
    std::vector<torch::Tensor> out(nodes.size());
    std::vector<std::future<void>> done;
    for (size_t k = 0; k < nodes.size(); ++k)
      done.push_back(pool.enqueue([this, k, &nodes, &out, feature] { out[k] = aggregate(nodes[k], feature); }));
    for (auto &d : done)
      d.get();
    return torch::cat(out);
  }
};

// std::launch::deferred runs the task on the thread that calls get(): the
// spawning thread's guard covers it.
float evaluate_deferred(Net &net, torch::Tensor x) {
  torch::NoGradGuard no_grad;
  auto f = std::async(std::launch::deferred, [&] { return net->forward(x).sum().item<float>(); });
  return f.get();
}
