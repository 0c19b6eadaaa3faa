// RUN: %check_torch_tidy %s torch-cuda-stream-not-restored %t
// RUN: %cxx -fsyntax-only -std=c++17 -isystem %mocks -Wno-deprecated-declarations %t.cpp
// CHECK-FIXES compares blanks loosely; EXACT checks the fixed lines' indentation.
// RUN: FileCheck --strict-whitespace --check-prefix=EXACT --input-file=%t.cpp %s
// RUN: %check_torch_tidy -check-suffix=NOEXC --no-fix %s torch-cuda-stream-not-restored %t \
// RUN:   -config="{CheckOptions: {torch-cuda-stream-not-restored.CheckExceptionSafety: false}}"
#include <torch/torch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <stdexcept>
#include <functional>
#include <thread>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

int count() noexcept;
void log_line(const char *text) noexcept;

// ---- not switched back on every path ---------------------------------------

torch::Tensor early_return(Net &model, torch::Tensor x) {
  auto prev = at::cuda::getCurrentCUDAStream();
  auto side = at::cuda::getStreamFromPool();
  at::cuda::setCurrentCUDAStream(side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is not switched back on every path out of 'early_return': the caller's later kernels run on it, unordered with the work queued on the stream it expects [torch-cuda-stream-not-restored]
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: CUDA stream made current here is not switched back on every path out of 'early_return'
  auto y = model(x);
  if (!y.defined())
    return y;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the stream is still current when it returns here
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: no fix-it: variables declared while the stream is current are used after it is switched back; hold a 'c10::cuda::CUDAStreamGuard' for the scope that needs the stream
  return y * 2;
}

void run_on(c10::cuda::CUDAStream stream, Net &model, torch::Tensor x) {
  c10::cuda::setCurrentCUDAStream(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is not switched back on every path out of 'run_on'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: CUDA stream made current here is not switched back on every path out of 'run_on'
  model(x);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: the stream is still current at the end
// CHECK-MESSAGES: :[[@LINE-6]]:3: note: no fix-it: the previous stream is not made current again later in the same block; hold a 'c10::cuda::CUDAStreamGuard' for the scope that needs the stream

void each_stream(const std::vector<c10::cuda::CUDAStream> &streams, torch::Tensor x) {
  for (const auto &stream : streams) {
    c10::cuda::setCurrentCUDAStream(stream);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is not switched back on every path out of 'each_stream'
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: CUDA stream made current here is not switched back
    x.add_(1);
  }
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: the stream is still current at the end
// CHECK-MESSAGES: :[[@LINE-7]]:5: note: no fix-it: the previous stream is not made current again

void throws_out(torch::Tensor x) {
  auto prev = c10::cuda::getCurrentCUDAStream();
  c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool(true));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is not switched back on every path out of 'throws_out'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: CUDA stream made current here is not switched back
  if (x.dim() != 2)
    throw std::runtime_error("bad input");
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the stream is still current when this exception leaves
  x.mul_(2);
  c10::cuda::setCurrentCUDAStream(prev);
}
// CHECK-FIXES: {{^}}void throws_out(torch::Tensor x) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  c10::cuda::CUDAStreamGuard stream_guard(c10::cuda::getStreamFromPool(true));{{$}}
// CHECK-FIXES: {{^}}  if (x.dim() != 2){{$}}
// CHECK-FIXES: {{^}}  x.mul_(2);{{$}}
// CHECK-FIXES-NEXT: {{^}}}{{$}}

void saved_too_late(Net &model, c10::cuda::CUDAStream side, torch::Tensor x) {
  c10::cuda::setCurrentCUDAStream(side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is not switched back on every path out of 'saved_too_late'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: CUDA stream made current here is not switched back
  auto prev = c10::cuda::getCurrentCUDAStream(); // reads the side stream
  model(x);
  c10::cuda::setCurrentCUDAStream(prev);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: the stream is still current at the end
// CHECK-MESSAGES: :[[@LINE-8]]:3: note: no fix-it: the previous stream is not made current again

void in_a_lambda(Net &model, c10::cuda::CUDAStream side) {
  auto infer = [&](torch::Tensor x) {
    c10::cuda::setCurrentCUDAStream(side);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is not switched back on every path out of the lambda
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: CUDA stream made current here is not switched back
    return model(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the stream is still current when it returns here
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: no fix-it: the previous stream is not made current again
  };
  infer(torch::randn({2, 4}));
}

// Inside a lambda the order of its own body decides whether the stream read
// is the one current before the switch: read after it, it is the new stream.
void record_event() noexcept;
void saved_too_late_in_lambda(c10::cuda::CUDAStream side) {
  auto launch = [&] {
    c10::cuda::setCurrentCUDAStream(side);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is not switched back on every path out of the lambda
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: CUDA stream made current here is not switched back
    auto prev = c10::cuda::getCurrentCUDAStream(); // reads the side stream
    record_event();
    c10::cuda::setCurrentCUDAStream(prev);
  };
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the stream is still current at the end
  // CHECK-MESSAGES: :[[@LINE-8]]:5: note: no fix-it: the previous stream is not made current again
  launch();
}
void saved_in_time_in_lambda(c10::cuda::CUDAStream side) {
  auto launch = [&] {
    auto prev = c10::cuda::getCurrentCUDAStream();
    c10::cuda::setCurrentCUDAStream(side);
    record_event();
    c10::cuda::setCurrentCUDAStream(prev);
  };
  launch();
}

// A pool's worker thread runs the next task on the stream this one left.
class ThreadPool {
public:
  template <class F> void enqueue(F &&f) { tasks_.emplace_back(std::forward<F>(f)); }

private:
  std::vector<std::function<void()>> tasks_;
};
void pool_task(ThreadPool &pool, Net &model, torch::Tensor x) {
  pool.enqueue([&] {
    c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is not switched back on every path out of the lambda
    // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: CUDA stream made current here is not switched back
    model(x);
  });
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the stream is still current at the end
  // CHECK-MESSAGES: :[[@LINE-6]]:5: note: no fix-it: the previous stream is not made current again
}

// ---- switched back, but not when something throws ---------------------------

void copy_async(torch::Tensor dst, torch::Tensor src) {
  c10::cuda::CUDAStream prev = c10::cuda::getCurrentCUDAStream();
  auto side = c10::cuda::getStreamFromPool();
  c10::cuda::setCurrentCUDAStream(side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws: an exception leaves it current, and the caller's later kernels run on it, unordered with the work queued on the stream it expects [torch-cuda-stream-not-restored]
  dst.copy_(src, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before the previous stream is made current again
  c10::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
}
// CHECK-FIXES: {{^}}void copy_async(torch::Tensor dst, torch::Tensor src) {{{$}}
// EXACT: {{^}}void copy_async(torch::Tensor dst, torch::Tensor src) {{{$}}
// EXACT-NEXT: {{^}}  auto side = c10::cuda::getStreamFromPool();{{$}}
// EXACT-NEXT: {{^}}  c10::cuda::CUDAStreamGuard stream_guard(side);{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto side = c10::cuda::getStreamFromPool();{{$}}
// CHECK-FIXES-NEXT: {{^}}  c10::cuda::CUDAStreamGuard stream_guard(side);{{$}}
// CHECK-FIXES: {{^}}  dst.copy_(src, true);{{$}}

// Switched and switched back under the same flag, never written (DeepEP's
// `if (allocate_on_comm_stream)` pairs): every normal path switches back.
void same_flag(torch::Tensor a, bool on_side) {
  auto prev = at::cuda::getCurrentCUDAStream();
  if (on_side)
    at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is switched back only when nothing throws
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before the previous stream is made current again
  if (on_side)
    at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: switched back here
  // CHECK-MESSAGES: :[[@LINE-7]]:5: note: no fix-it: the previous stream is not made current again
}

void same_flag_negated(torch::Tensor a, const bool &on_compute) {
  auto prev = at::cuda::getCurrentCUDAStream();
  if (!on_compute) {
    at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is switched back only when nothing throws
  }
  if (on_compute)
    return;
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before the previous stream is made current again
  if (!on_compute)
    at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: switched back here
  // CHECK-MESSAGES: :[[@LINE-10]]:5: note: no fix-it: the previous stream is not made current again
}

// The flag is written between: the second test may skip the switch back.
void flag_written(torch::Tensor a, bool on_side) {
  auto prev = at::cuda::getCurrentCUDAStream();
  if (on_side)
    at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is not switched back on every path out of 'flag_written'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:5: warning: CUDA stream made current here is not switched back on every path out of 'flag_written'
  on_side = a.numel() > 0;
  if (on_side)
    at::cuda::setCurrentCUDAStream(prev);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: the stream is still current at the end
// CHECK-MESSAGES: :[[@LINE-8]]:5: note: no fix-it: the previous stream is not made current again

void two_phases(torch::Tensor a, torch::Tensor b) {
  auto prev = at::cuda::getCurrentCUDAStream();
  at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw before the previous stream is made current again
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
  b.add_(1);
  log_line("done");
}
// CHECK-FIXES: {{^}}void two_phases(torch::Tensor a, torch::Tensor b) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  {{{$}}
// CHECK-FIXES-NEXT: {{^}}    c10::cuda::CUDAStreamGuard stream_guard(at::cuda::getStreamFromPool());{{$}}
// CHECK-FIXES: {{^}}  a.add_(1);{{$}}
// CHECK-FIXES: {{^}}  }{{$}}
// CHECK-FIXES: {{^}}  b.add_(1);{{$}}

void saved_used_again(torch::Tensor a) {
  auto prev = at::cuda::getCurrentCUDAStream();
  at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
  prev.synchronize();
}
// CHECK-FIXES: {{^}}void saved_used_again(torch::Tensor a) {{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto prev = at::cuda::getCurrentCUDAStream();{{$}}
// CHECK-FIXES-NEXT: {{^}}  {{{$}}
// CHECK-FIXES-NEXT: {{^}}    c10::cuda::CUDAStreamGuard stream_guard(at::cuda::getStreamFromPool());{{$}}

// The saved stream handed by non-const reference to a helper defined
// elsewhere, which reads it: still the saved stream.
void wait_on(c10::cuda::CUDAStream &dependency, c10::cuda::CUDAStream &dependent);
void saved_handed_by_reference(torch::Tensor a) {
  auto prev = at::cuda::getCurrentCUDAStream();
  auto side = at::cuda::getStreamFromPool();
  at::cuda::setCurrentCUDAStream(side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  wait_on(prev, side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  a.add_(1);
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
}

// A helper defined here that overwrites what it is handed: the variable no
// longer holds the saved stream.
void replace_stream(c10::cuda::CUDAStream &stream) { stream = at::cuda::getStreamFromPool(); }
void saved_overwritten_by_helper(torch::Tensor a) {
  auto prev = at::cuda::getCurrentCUDAStream();
  at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is not switched back on every path out of 'saved_overwritten_by_helper'
  // CHECK-MESSAGES-NOEXC: :[[@LINE-2]]:3: warning: CUDA stream made current here is not switched back on every path out of 'saved_overwritten_by_helper'
  replace_stream(prev);
  a.add_(1);
  at::cuda::setCurrentCUDAStream(prev);
}
// CHECK-MESSAGES: :[[@LINE-1]]:1: note: the stream is still current at the end

void back_to_default(torch::Tensor a) {
  at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  at::cuda::setCurrentCUDAStream(at::cuda::getDefaultCUDAStream());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: no fix-it: it switches to the default stream, not back to the one current before, which a guard would restore; hold a 'c10::cuda::CUDAStreamGuard' for the scope that needs the stream
}

void other_device(torch::Tensor a, c10::Device device) {
  auto prev = at::cuda::getCurrentCUDAStream();
  auto side = at::cuda::getStreamFromPool(false, 1);
  at::cuda::setCurrentCUDAStream(side);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
  // CHECK-MESSAGES: :[[@LINE-6]]:3: note: no fix-it: a guard also makes the stream's device current until the end of its scope, and this stream is not known to be on the current device, or the device changes before the stream is switched back; hold a 'c10::cuda::CUDAStreamGuard'
}

void device_changes(torch::Tensor a) {
  auto prev = at::cuda::getCurrentCUDAStream();
  at::cuda::setCurrentCUDAStream(at::cuda::getStreamFromPool());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: CUDA stream made current here is switched back only when nothing throws
  c10::cuda::CUDAGuard device_guard(1);
  a.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: this call may throw
  at::cuda::setCurrentCUDAStream(prev);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: switched back here
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: no fix-it: a guard also makes the stream's device current
}

// ---- must not flag ----------------------------------------------------------

int main() {
  // The program's stream: nothing runs after main returns.
  c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
  Net model;
  model(torch::randn({2, 4}));
  return 0;
}

// A setter that does nothing else: the caller owns the switch.
void use_stream(c10::cuda::CUDAStream stream) { c10::cuda::setCurrentCUDAStream(stream); }

void restored_on_every_path(c10::cuda::CUDAStream side) {
  auto prev = c10::cuda::getCurrentCUDAStream();
  c10::cuda::setCurrentCUDAStream(side);
  int n = count();
  if (n > 3) {
    c10::cuda::setCurrentCUDAStream(prev);
    return;
  }
  log_line("small");
  c10::cuda::setCurrentCUDAStream(prev);
}

void restored_by_handler(Net &model, torch::Tensor x) {
  auto prev = c10::cuda::getCurrentCUDAStream();
  c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
  try {
    model(x);
  } catch (...) {
    c10::cuda::setCurrentCUDAStream(prev);
    throw;
  }
  c10::cuda::setCurrentCUDAStream(prev);
}

void guard_used(Net &model, torch::Tensor x) {
  c10::cuda::CUDAStreamGuard guard(c10::cuda::getStreamFromPool());
  model(x);
}

void inside_a_guard(Net &model, torch::Tensor x, c10::cuda::CUDAStream other) {
  c10::StreamGuard guard(c10::cuda::getStreamFromPool());
  c10::cuda::setCurrentCUDAStream(other); // the guard switches back at the end
  model(x);
}

void own_thread(Net &model, torch::Tensor x) {
  // The thread's stream dies with the thread: nothing else runs on it.
  std::thread worker([&] {
    c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
    model(x);
  });
  worker.join();
  std::vector<std::thread> workers;
  workers.emplace_back([&] {
    c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
    model(x);
  });
}

// A RAII helper: the destructor makes the saved stream current again.
class StreamScope {
public:
  explicit StreamScope(c10::cuda::CUDAStream stream)
      : prev_(c10::cuda::getCurrentCUDAStream()) {
    c10::cuda::setCurrentCUDAStream(stream);
    log_line("switched");
  }
  ~StreamScope() { c10::cuda::setCurrentCUDAStream(prev_); }
  void retarget(c10::cuda::CUDAStream stream, torch::Tensor x) {
    c10::cuda::setCurrentCUDAStream(stream);
    x.add_(1);
  }

private:
  c10::cuda::CUDAStream prev_;
};

class Runner {
public:
  void begin() {
    saved_ = c10::cuda::getCurrentCUDAStream();
    c10::cuda::setCurrentCUDAStream(side_);
  }
  void end() { c10::cuda::setCurrentCUDAStream(saved_); }
  void step(torch::Tensor x) {
    saved_ = c10::cuda::getCurrentCUDAStream();
    c10::cuda::setCurrentCUDAStream(side_);
    log_line("step");
    c10::cuda::setCurrentCUDAStream(saved_);
  }

private:
  c10::cuda::CUDAStream saved_ = c10::cuda::getCurrentCUDAStream();
  c10::cuda::CUDAStream side_ = c10::cuda::getStreamFromPool();
};

// The raw handle saved, wrapped again to switch back (a mixture-of-experts
// kernel's pattern): a restore, though not one that an exception takes.
void raw_handle_saved(torch::Tensor x, cudaStream_t peer) {
  for (int i = 0; i < 2; ++i) {
    cudaStream_t saved_stream = c10::cuda::getCurrentCUDAStream();
    at::cuda::CUDAStream peer_stream = at::cuda::getStreamFromExternal(peer, x.device().index());
    c10::cuda::setCurrentCUDAStream(peer_stream);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA stream made current here is switched back only when nothing throws
    log_line("peer");
    at::cuda::CUDAStream saved_cuda_stream =
        at::cuda::getStreamFromExternal(saved_stream, x.device().index());
    // CHECK-MESSAGES: :[[@LINE-1]]:55: note: this call may throw
    c10::cuda::setCurrentCUDAStream(saved_cuda_stream);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: switched back here
    // CHECK-MESSAGES: :[[@LINE-8]]:5: note: no fix-it: a guard also makes the stream's device current
  }
}

void back_to_default_variable(torch::Tensor x) {
  at::cuda::CUDAStream defaultStream = at::cuda::getDefaultCUDAStream();
  at::cuda::setCurrentCUDAStream(defaultStream);
  x.add_(1);
}
