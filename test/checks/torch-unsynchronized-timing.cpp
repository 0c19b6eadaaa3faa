// RUN: %check_torch_tidy %s torch-unsynchronized-timing %t
#include <torch/torch.h>
#include <torch/script.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#include <chrono>
#include <ctime>
#include <iostream>
#include <vector>

using Clock = std::chrono::steady_clock;

// --- Positives ----------------------------------------------------------------

void forward_on_cuda(torch::nn::Linear model, torch::Tensor x) {
  torch::Device device(torch::kCUDA);
  model->to(device);
  auto start = std::chrono::steady_clock::now();
  auto y = model->forward(x.to(device));
  auto end = std::chrono::steady_clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: clock read after CUDA work with no synchronisation: kernels run asynchronously, so the interval measures their launches, not the work; call torch::cuda::synchronize() before reading the clock [torch-unsynchronized-timing]
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-7]]:17: note: the device is CUDA
  std::cout << std::chrono::duration_cast<std::chrono::milliseconds>(end - start).count() << "\n";
}
// CHECK-FIXES:      auto y = model->forward(x.to(device));
// CHECK-FIXES-NEXT: {{^}}  torch::cuda::synchronize();{{$}}
// CHECK-FIXES-NEXT: {{^}}  auto end = std::chrono::steady_clock::now();{{$}}

// The device chosen at run time: the timing is wrong whenever a GPU is
// there; the fix-it synchronises only then (synchronize() throws without one).
void runtime_device(torch::nn::Linear model, torch::Tensor x) {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  model->to(device);
  std::chrono::high_resolution_clock::time_point t0, t1;
  t0 = std::chrono::high_resolution_clock::now();
  auto y = model->forward(x.to(device));
  t1 = std::chrono::high_resolution_clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-3]]:12: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-8]]:54: note: the device is CUDA when one is available
  std::chrono::duration<double> elapsed = t1 - t0;
  std::cout << elapsed.count() << "\n";
}
// CHECK-FIXES:      {{^}}  if (torch::cuda::is_available()){{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::cuda::synchronize();{{$}}
// CHECK-FIXES-NEXT: {{^}}  t1 = std::chrono::high_resolution_clock::now();{{$}}

// A training step timed in a loop; the end reading inline in the subtraction.
void train_steps(torch::nn::Linear model, torch::optim::SGD &optimizer, torch::Tensor x,
                 torch::Tensor target) {
  model->to(torch::kCUDA);
  for (int i = 0; i < 10; ++i) {
    auto begin = Clock::now();
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(x), target);
    loss.backward();
    optimizer.step();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin).count();
    // CHECK-MESSAGES: :[[@LINE-1]]:69: warning: clock read after CUDA work with no synchronisation
    // CHECK-MESSAGES: :[[@LINE-5]]:17: note: CUDA work that the interval does not wait for
    // CHECK-MESSAGES: :[[@LINE-10]]:13: note: the device is CUDA
    std::cout << ms << "\n";
  }
}
// CHECK-FIXES:      {{^}}    optimizer.step();{{$}}
// CHECK-FIXES-NEXT: {{^}}    torch::cuda::synchronize();{{$}}

// A TorchScript module on a device named by a string; the reading in the
// same statement as the forward pass: no fix-it.
double jit_inference(torch::jit::script::Module &module, std::vector<torch::jit::IValue> inputs) {
  module.to(torch::Device("cuda:0"));
  auto t0 = std::chrono::system_clock::now();
  auto t1 = (module.forward(inputs), std::chrono::system_clock::now());
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-2]]:14: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-5]]:13: note: the device is CUDA
  // CHECK-MESSAGES: :[[@LINE-4]]:38: note: no fix-it: the clock reading is in a macro, is not in a statement of its own block, or shares its statement with the work
  return std::chrono::duration<double>(t1 - t0).count();
}

// Readings converted to milliseconds since the epoch before the subtraction.
void epoch_millis(torch::jit::script::Module &module, std::vector<torch::jit::IValue> inputs) {
  module.to(at::kCUDA);
  std::chrono::time_point<std::chrono::high_resolution_clock> start_point, end_point;
  start_point = std::chrono::high_resolution_clock::now();
  module.forward(inputs);
  end_point = std::chrono::high_resolution_clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-7]]:13: note: the device is CUDA
  auto start = std::chrono::time_point_cast<std::chrono::milliseconds>(start_point).time_since_epoch().count();
  auto end = std::chrono::time_point_cast<std::chrono::milliseconds>(end_point).time_since_epoch().count();
  std::cout << (end - start) << "\n";
}
// CHECK-FIXES:      {{^}}  module.forward(inputs);{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::cuda::synchronize();{{$}}
// CHECK-FIXES-NEXT: {{^}}  end_point = std::chrono::high_resolution_clock::now();{{$}}

// C's clock() and a helper of the user's that runs the forward pass.
torch::Tensor run_model(torch::nn::Linear &model, const torch::Tensor &x) {
  return model->forward(x);
}
void helper_work(torch::nn::Linear model, torch::Tensor x) {
  x = x.cuda();
  clock_t c0 = clock();
  run_model(model, x);
  clock_t c1 = clock();
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-6]]:7: note: the device is CUDA
  std::cout << double(c1 - c0) / CLOCKS_PER_SEC << "\n";
}
// CHECK-FIXES:      {{^}}  run_model(model, x);{{$}}
// CHECK-FIXES-NEXT: {{^}}  torch::cuda::synchronize();{{$}}

// The work on one branch, the synchronisation missing on that branch.
void work_on_one_branch(torch::nn::Linear model, torch::Tensor x, bool twice) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  auto y = model->forward(x).cpu();
  if (twice)
    y = model->forward(x);
  auto t1 = Clock::now();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: clock read after CUDA work with no synchronisation
  // CHECK-MESSAGES: :[[@LINE-3]]:9: note: CUDA work that the interval does not wait for
  // CHECK-MESSAGES: :[[@LINE-8]]:13: note: the device is CUDA
  std::cout << (t1 - t0).count() << "\n";
}

// --- Negatives ----------------------------------------------------------------

// Synchronised: every spelling.
void synchronized(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  model->forward(x);
  torch::cuda::synchronize();
  auto t1 = Clock::now();
  model->forward(x);
  c10::cuda::getCurrentCUDAStream().synchronize();
  auto t2 = Clock::now();
  model->forward(x);
  cudaDeviceSynchronize();
  auto t3 = Clock::now();
  model->forward(x);
  cudaStreamSynchronize(c10::cuda::getCurrentCUDAStream());
  auto t4 = Clock::now();
  at::cuda::CUDAEvent done;
  model->forward(x);
  done.record();
  done.synchronize();
  auto t5 = Clock::now();
  std::cout << (t1 - t0).count() << (t2 - t1).count() << (t3 - t2).count() << (t4 - t3).count()
            << (t5 - t4).count() << "\n";
}

// A host-synchronising op after the last work: item(), cpu(), to(kCPU), printing.
void host_sync_ops(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  float v = model->forward(x).sum().item<float>();
  auto t1 = Clock::now();
  auto y = model->forward(x).cpu();
  auto t2 = Clock::now();
  auto z = model->forward(x).to(torch::kCPU);
  auto t3 = Clock::now();
  auto w = model->forward(x);
  std::cout << w << "\n";
  auto t4 = Clock::now();
  std::cout << v << (t1 - t0).count() << (t2 - t1).count() << (t3 - t2).count()
            << (t4 - t3).count() << "\n";
}

// The synchronisation under a test of the device: the correct idiom.
void sync_if_cuda(torch::nn::Linear model, torch::Tensor x, torch::Device device) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  auto y = model->forward(x);
  if (device.is_cuda())
    torch::cuda::synchronize();
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
}

// No CUDA in the function: CPU timing.
void cpu_only(torch::nn::Linear model, torch::Tensor x) {
  auto t0 = Clock::now();
  model->forward(x);
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
}

// The device compared with, never chosen.
void compares_device(torch::nn::Linear model, torch::Tensor x) {
  auto t0 = Clock::now();
  model->forward(x);
  auto t1 = Clock::now();
  if (x.device().type() == torch::kCUDA)
    std::cout << "on the GPU\n";
  std::cout << (t1 - t0).count() << "\n";
}

// No torch work in the interval.
void no_work(torch::nn::Linear model, torch::Tensor x, std::vector<float> &data) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  for (float &f : data)
    f *= 2.0f;
  auto t1 = Clock::now();
  model->forward(x);
  std::cout << (t1 - t0).count() << "\n";
}

// Two readings that are not an interval: timestamps for a log.
void timestamps(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto before = std::chrono::system_clock::now();
  model->forward(x);
  auto after = std::chrono::system_clock::now();
  std::cout << before.time_since_epoch().count() << " " << after.time_since_epoch().count() << "\n";
}

// The work after the end reading, on a later iteration only behind a new start.
void work_after_interval(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    auto t1 = Clock::now();
    std::cout << (t1 - t0).count() << "\n";
    model->forward(x);
  }
}

// The CUDA device chosen after the timed region (CPU timing first).
void cpu_then_gpu(torch::nn::Linear model, torch::Tensor x) {
  auto t0 = Clock::now();
  model->forward(x);
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
  model->to(torch::kCUDA);
}

// Work inside a lambda runs where the lambda is called.
void in_lambda(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  auto run = [&] { return model->forward(x); };
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
  run();
}

// A helper of the user's that synchronises.
torch::Tensor run_and_wait(torch::nn::Linear &model, const torch::Tensor &x) {
  auto y = model->forward(x);
  torch::cuda::synchronize();
  return y;
}
void helper_syncs(torch::nn::Linear model, torch::Tensor x) {
  model->to(torch::kCUDA);
  auto t0 = Clock::now();
  run_and_wait(model, x);
  auto t1 = Clock::now();
  std::cout << (t1 - t0).count() << "\n";
}
