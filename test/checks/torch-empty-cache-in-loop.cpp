// RUN: %check_torch_tidy --fix-notes %s torch-empty-cache-in-loop %t
#include <torch/torch.h>
#include <c10/cuda/CUDACachingAllocator.h>

namespace alloc = c10::cuda::CUDACachingAllocator;

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

using Loader = std::unique_ptr<
    torch::data::StatelessDataLoader<torch::data::datasets::MNIST, torch::data::samplers::RandomSampler>>;

void train_epoch(Net &model, torch::optim::SGD &opt, Loader &loader) {
  for (auto &batch : *loader) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(batch.front().data), batch.front().target);
    loss.backward();
    opt.step();
    c10::cuda::CUDACachingAllocator::emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration of a loop gives no memory back to PyTorch: it synchronises the device and returns cached blocks to the driver, so the next iteration pays for slow 'cudaMalloc' calls again [torch-empty-cache-in-loop]
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the loop is here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: remove the call
  }
}
// The call's line is gone; the blanked CHECK lines follow the step.
// CHECK-FIXES: {{^}}    opt.step();{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}

void counted_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 10; ++i) {
    auto y = model(x);
    alloc::emptyCache(); // namespace alias
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: remove the call
  }
}
// CHECK-FIXES: {{^}}    auto y = model(x);{{$}}
// CHECK-FIXES-NEXT: {{^}}    // namespace alias{{$}}

void while_loop(Net &model, torch::Tensor x) {
  int steps = 0;
  while (steps++ < 10) {
    model(x);
    c10::cuda::CUDACachingAllocator::get()->emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: remove the call
  }
}
// CHECK-FIXES: {{^}}    model(x);{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}

void do_loop(Net &model, torch::Tensor x) {
  int steps = 0;
  do {
    model(x);
    using namespace c10::cuda::CUDACachingAllocator;
    emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop is here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: remove the call
  } while (++steps < 10);
}

struct Trainer {
  Net model;
  void run(torch::Tensor x) {
    auto step = [&](int n) {
      for (int i = 0; i < n; ++i) {
        model(x);
        c10::cuda::CUDACachingAllocator::emptyCache();
        // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'emptyCache' on every iteration
        // CHECK-MESSAGES: :[[@LINE-4]]:7: note: the loop is here
        // CHECK-MESSAGES: :[[@LINE-3]]:9: note: remove the call
      }
    };
    step(3);
  }
};

// An unbraced loop body: a warning, but no removal that would leave 'for (...)'.
void unbraced(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i)
    c10::cuda::CUDACachingAllocator::emptyCache();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
}
// CHECK-FIXES: {{^}}  for (int i = 0; i < 3; ++i){{$}}
// CHECK-FIXES-NEXT: {{^}}    c10::cuda::CUDACachingAllocator::emptyCache();{{$}}

#define FREE_CACHE() c10::cuda::CUDACachingAllocator::emptyCache()
void in_macro(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) {
    model(x);
    FREE_CACHE();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop is here
  }
}
// CHECK-FIXES: {{^}}    FREE_CACHE();{{$}}

// ---- must not flag ----------------------------------------------------------

void once_outside_loops(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i)
    model(x);
  c10::cuda::CUDACachingAllocator::emptyCache();
}

void once_per_epoch(Net &model, torch::Tensor x) {
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int i = 0; i < 100; ++i)
      model(x);
    c10::cuda::CUDACachingAllocator::emptyCache(); // between phases, once per epoch
  }
}

void every_hundred_steps(Net &model, torch::Tensor x) {
  for (int i = 0; i < 1000; ++i) {
    model(x);
    if (i % 100 == 0)
      c10::cuda::CUDACachingAllocator::emptyCache();
  }
}

struct OutOfMemory {};
void retry_after_oom(Net &model, torch::Tensor x) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      model(x);
      break;
    } catch (const OutOfMemory &) {
      c10::cuda::CUDACachingAllocator::emptyCache();
    }
  }
}

void lambda_defined_in_loop(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) {
    auto cleanup = [] { c10::cuda::CUDACachingAllocator::emptyCache(); };
    (void)cleanup;
  }
}

namespace other {
void emptyCache();
}
void another_empty_cache(Net &model, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) {
    model(x);
    other::emptyCache();
  }
}

// Execution order from the CFG: a `continue` before the call skips it on some
// iterations, like an `if` around it.
void skipped_by_continue(Net &model, torch::Tensor x, bool oom) {
  for (int i = 0; i < 3; ++i) {
    model(x);
    if (!oom)
      continue;
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
}

// Inside a lambda the order of its own body decides: a `continue` before the
// call skips it on some iterations; one after it does not.
void skipped_by_continue_in_lambda(Net &model, torch::Tensor x, bool oom) {
  auto epoch = [&] {
    for (int i = 0; i < 3; ++i) {
      model(x);
      if (!oom)
        continue;
      c10::cuda::CUDACachingAllocator::emptyCache();
    }
  };
  epoch();
}
void continue_after_in_lambda(Net &model, torch::Tensor x, bool skip) {
  auto epoch = [&] {
    for (int i = 0; i < 3; ++i) {
      model(x); // one step
      c10::cuda::CUDACachingAllocator::emptyCache(); // in a lambda
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'emptyCache' on every iteration of a loop gives no memory back to PyTorch
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: the loop is here
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: remove the call
      if (skip)
        continue;
      model(x);
    }
  };
  epoch();
}
// CHECK-FIXES: {{^}}      model(x); // one step{{$}}
// CHECK-FIXES-NEXT: {{^}}      // in a lambda{{$}}

// A `break` ends the loop: the call still runs on every iteration that goes on.
void before_a_break(Net &model, torch::Tensor x, bool done) {
  for (int i = 0; i < 3; ++i) {
    if (done)
      break;
    model(x); // a break before
    c10::cuda::CUDACachingAllocator::emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'emptyCache' on every iteration of a loop gives no memory back to PyTorch
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: remove the call
  }
}
// CHECK-FIXES: {{^}}    model(x); // a break before{{$}}
// CHECK-FIXES-NEXT: {{^}}    //{{$}}
