// AOTInductor serving code for scripts/test-torch2.sh (LibTorch 2.x only: the
// AOTI headers are not in 1.13): torch-load-in-loop must find the loader and
// the runner constructed in the loop, torch-eval-without-no-grad the eager
// forward passes (not the compiled package's run()), and the program with the
// fix-its (c10::InferenceMode in evaluate, option SuggestInferenceMode in
// aoti_serving.clang-tidy; torch::NoGradGuard in predict) must compile against
// the wheel's headers.
#include <torch/torch.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#include <memory>
#include <string>

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

bool next_request(torch::Tensor &x);

void serve(const std::string &package, const std::string &so_path) {
  torch::Tensor x;
  while (next_request(x)) {
    torch::inductor::AOTIModelPackageLoader loader(package);
    auto runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCpu>(so_path);
    loader.run({x});
    runner->run({x});
  }
}

float evaluate(Net &model, torch::inductor::AOTIModelPackageLoader &loader, torch::Tensor x) {
  auto compiled = loader.run({x})[0];
  return (model(x) - compiled).abs().max().item<float>();
}

torch::Tensor predict(Net &model, torch::Tensor x) { return model(x); }
