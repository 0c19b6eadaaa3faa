// RUN: %check_torch_tidy %s torch-load-in-loop %t
#include <torch/torch.h>
#include <torch/script.h>
#include <string>
#include <vector>

struct Request {
  torch::Tensor input;
};
bool next_request(Request &r);
void respond(const torch::Tensor &t);

// --- Positives ----------------------------------------------------------------

// Per-request model loading in a serving loop.
void serve(const std::string &model_path) {
  Request req;
  while (next_request(req)) {
    torch::jit::Module model = torch::jit::load(model_path);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: the same file is loaded on every iteration of a loop: each load reads and allocates the whole model again; load it once before the loop [torch-load-in-loop]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    respond(model.forward({req.input}).toTensor());
  }
}

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x);
};
TORCH_MODULE(Net);

// torch::load into a module and an optimizer, an InputArchive, a literal path.
void evaluate_many(Net &net, torch::optim::SGD &opt, const std::vector<torch::Tensor> &inputs) {
  for (const auto &x : inputs) {
    torch::load(net, "net.pt");
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop is here
    torch::load(opt, std::string("opt.pt"));
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: the loop is here
    torch::serialize::InputArchive archive;
    archive.load_from("state.pt");
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: the same file is loaded on every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-10]]:3: note: the loop is here
    net->forward(x);
  }
}

// Through a helper the loop calls (per-request loading behind a function).
struct Predictor {
  std::string path_;
  torch::jit::Module model() { return torch::jit::load(path_); }
  torch::Tensor predict(torch::Tensor x) {
    return model().forward({x}).toTensor();
  }
  void run(const std::vector<torch::Tensor> &batch) {
    for (const auto &x : batch)
      respond(predict(x));
  }
  // CHECK-MESSAGES: :[[@LINE-8]]:39: warning: the same file is loaded on every iteration of a loop that calls 'model'
  // CHECK-MESSAGES: :[[@LINE-7]]:12: note: 'model' is called here
  // CHECK-MESSAGES: :[[@LINE-4]]:15: note: 'predict' is called here
  // CHECK-MESSAGES: :[[@LINE-6]]:5: note: the loop is here
};

// A device that is the same on every iteration: still the same load.
void serve_on_cpu(const std::string &path) {
  Request r;
  while (next_request(r)) {
    auto m = torch::jit::load(path, torch::Device(torch::kCPU));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: the same file is loaded on every iteration of a loop
    respond(m.forward({r.input}).toTensor());
  }
}

// --- Look-alikes that must stay silent ----------------------------------------

// Evaluating saved checkpoints: the path changes with the iteration.
void evaluate_checkpoints(Net &net, const std::vector<std::string> &paths, int epochs) {
  for (const auto &p : paths)
    torch::load(net, p);
  for (int epoch = 0; epoch < epochs; ++epoch)
    torch::load(net, "checkpoint-" + std::to_string(epoch) + ".pt");
  std::string path = "a.pt";
  for (int i = 0; i < 3; ++i) {
    torch::jit::load(path);
    path = "b.pt";
  }
}
std::string next_checkpoint();
void watch(Net &net) {
  while (true)
    torch::load(net, next_checkpoint()); // a call may name another file
}

// Loaded once, before the loop.
void serve_well(const std::string &model_path) {
  torch::jit::Module model = torch::jit::load(model_path);
  Request req;
  while (next_request(req))
    respond(model.forward({req.input}).toTensor());
}

// Reloaded only when asked, retried on failure, or loaded until one works.
bool reload_requested();
void hot_reload(const std::string &model_path) {
  torch::jit::Module model = torch::jit::load(model_path);
  Request req;
  while (next_request(req)) {
    if (reload_requested())
      model = torch::jit::load(model_path);
    respond(model.forward({req.input}).toTensor());
  }
}
torch::jit::Module load_with_retry(const std::string &path) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      return torch::jit::load(path);
    } catch (...) {
    }
  }
  return torch::jit::Module();
}
void first_that_loads(Net &net, const std::string &path) {
  for (int i = 0; i < 5; ++i) {
    torch::load(net, path);
    if (net->forward(torch::zeros({1})).defined())
      break;
  }
}

// A helper whose path is its parameter, a lazily cached model, a tensor load.
struct Registry {
  torch::jit::Module load_one(const std::string &p) { return torch::jit::load(p); }
  void load_all(const std::vector<std::string> &paths) {
    for (const auto &p : paths)
      load_one(p);
  }
  bool loaded_ = false;
  torch::jit::Module cached_;
  std::string path_;
  torch::jit::Module &get() {
    if (!loaded_) {
      cached_ = torch::jit::load(path_);
      loaded_ = true;
    }
    return cached_;
  }
  void serve(const std::vector<torch::Tensor> &xs) {
    for (const auto &x : xs)
      respond(get().forward({x}).toTensor());
  }
};
void tensors(std::vector<torch::Tensor> &out) {
  for (int i = 0; i < 3; ++i) {
    torch::Tensor t;
    torch::load(t, "t.pt"); // a tensor, not a model: out of scope
    out.push_back(t);
  }
}
// A lambda spelled in the loop runs when it is called.
void deferred(std::vector<std::function<void()>> &jobs) {
  for (int i = 0; i < 3; ++i)
    jobs.push_back([] { torch::jit::load("m.pt"); });
}

// Replicas: each iteration keeps a model of its own (one per GPU, one per
// worker thread), not a reload of the one in use.
std::vector<torch::jit::script::Module> replicas_per_device(const std::string &path, int n) {
  std::vector<torch::jit::script::Module> out;
  for (int d = 0; d < n; ++d)
    out.push_back(torch::jit::load(path, torch::Device(torch::kCUDA, d)));
  return out;
}
std::vector<torch::jit::script::Module> replicas_per_worker(const std::string &path, int n) {
  std::vector<torch::jit::script::Module> out;
  for (int i = 0; i < n; ++i)
    out.emplace_back(torch::jit::load(path));
  return out;
}
void replicas_indexed(const std::string &path, std::vector<torch::jit::script::Module> &mods,
                      std::vector<torch::nn::Linear> &heads) {
  for (size_t i = 0; i < mods.size(); ++i) {
    mods[i] = torch::jit::load(path);
    torch::load(heads[i], path);
  }
}
