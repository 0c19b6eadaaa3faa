// RUN: %check_torch_tidy %s torch-load-in-loop %t
// AOTInductor (LibTorch 2.x): constructing an AOTIModelPackageLoader, or an
// AOTIModelContainerRunnerCpu/Cuda, loads the compiled package (or model
// library) and its weights: the same load as torch::jit::load.
#include <torch/torch.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cuda.h>
#include <memory>
#include <string>
#include <vector>

struct Request {
  torch::Tensor input;
};
bool next_request(Request &r);
void respond(const torch::Tensor &t);

// --- Positives ----------------------------------------------------------------

// A package loaded per request in a serving loop.
void serve(const std::string &package) {
  Request req;
  while (next_request(req)) {
    torch::inductor::AOTIModelPackageLoader loader(package);
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: the same file is loaded on every iteration of a loop: each load reads and allocates the whole model again; load it once before the loop [torch-load-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    respond(loader.run({req.input})[0]);
  }
}

// A temporary loader, a runner of a compiled library, std::make_unique.
void serve_variants(const std::string &so_path, int n) {
  for (int i = 0; i < n; ++i) {
    auto out = torch::inductor::AOTIModelPackageLoader("model.pt2").run({torch::ones({2})});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    torch::inductor::AOTIModelContainerRunnerCpu runner(so_path);
    // CHECK-MESSAGES: :[[@LINE-1]]:50: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
    auto cuda = std::make_unique<torch::inductor::AOTIModelContainerRunnerCuda>(so_path);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-9]]:3: note: the loop is here
    respond(runner.run({torch::ones({2})})[0] + cuda->run({torch::ones({2})})[0] + out[0]);
  }
}

// Through a helper that the loop calls.
std::vector<at::Tensor> predict_once(const torch::Tensor &x) {
  torch::inductor::AOTIModelPackageLoader loader("model.pt2");
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: the same file is loaded on every iteration of a loop that calls 'predict_once'
  return loader.run({x});
}
void serve_helper() {
  Request req;
  while (next_request(req))
    respond(predict_once(req.input)[0]);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: 'predict_once' is called here
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
}

// --- Negatives ----------------------------------------------------------------

// The fix: load once before the loop.
void serve_fixed(const std::string &package) {
  torch::inductor::AOTIModelPackageLoader loader(package);
  Request req;
  while (next_request(req))
    respond(loader.run({req.input})[0]);
}

// One package per iteration (a different file each time).
void load_each(const std::vector<std::string> &packages) {
  for (const std::string &p : packages) {
    torch::inductor::AOTIModelPackageLoader loader(p);
    respond(loader.run({torch::ones({2})})[0]);
  }
}

// One replica per device: the device argument changes with the loop.
void replicas(const std::string &package, int devices) {
  std::vector<std::unique_ptr<torch::inductor::AOTIModelPackageLoader>> loaders;
  for (int d = 0; d < devices; ++d)
    loaders.push_back(
        std::make_unique<torch::inductor::AOTIModelPackageLoader>(package, "model", false, 1, d));
  for (int d = 0; d < devices; ++d)
    torch::inductor::AOTIModelContainerRunnerCuda runner(package, 1, "cuda:" + std::to_string(d));
}

// Copies and moves of a loader are not loads; neither is run().
void reuse(torch::inductor::AOTIModelContainerRunnerCpu &runner, int n) {
  for (int i = 0; i < n; ++i)
    respond(runner.run({torch::ones({2})})[0]);
}

// A retry loop: it stops after the first load that works.
void retry(const std::string &package) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      torch::inductor::AOTIModelPackageLoader loader(package);
      respond(loader.run({torch::ones({2})})[0]);
      break;
    } catch (...) {
    }
  }
}

// A look-alike: a user class of the same name outside torch::inductor.
namespace mine {
struct AOTIModelPackageLoader {
  explicit AOTIModelPackageLoader(const std::string &path);
};
} // namespace mine
void look_alike(const std::string &path, int n) {
  for (int i = 0; i < n; ++i)
    mine::AOTIModelPackageLoader loader(path);
}
