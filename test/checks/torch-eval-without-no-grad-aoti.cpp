// RUN: %check_torch_tidy %s torch-eval-without-no-grad %t
// AOTInductor: loader.run(inputs) runs a compiled graph whose kernels (the
// AOTI C shim, below the Autograd dispatch key) record no autograd history
// and whose weights are package constants that do not require grad: an
// unguarded run() keeps no graph, so it is not flagged.
#include <torch/torch.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// Evaluation code by name that only runs a compiled package: no warning.
float evaluate(torch::inductor::AOTIModelPackageLoader &loader, torch::Tensor x) {
  return loader.run({x})[0].sum().item<float>();
}

std::vector<at::Tensor> predict(const std::string &package, torch::Tensor x) {
  torch::inductor::AOTIModelPackageLoader loader(package);
  return loader.run({x});
}

float infer(torch::inductor::AOTIModelContainerRunnerCpu &runner, torch::Tensor x) {
  auto outs = runner.boxed_run({x});
  return outs[0].sum().item<float>();
}

// After eval(): the eager module's forward pass is flagged, the compiled
// package's run() is not.
float compare(Net &model, torch::inductor::AOTIModelPackageLoader &loader, torch::Tensor x) {
  model->eval();
  auto compiled = loader.run({x})[0];
  auto eager = model(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: forward pass in evaluation code runs with autograd enabled
  // CHECK-MESSAGES: :[[@LINE-4]]:10: note: module switched to evaluation mode here
  return (compiled - eager).abs().max().item<float>();
}
// CHECK-FIXES: model->eval();
// CHECK-FIXES-NEXT: torch::NoGradGuard no_grad;
// CHECK-FIXES-NEXT: auto compiled = loader.run({x})[0];
