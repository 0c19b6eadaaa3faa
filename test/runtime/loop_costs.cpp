// Measurement (not a test): what torch-load-in-loop and torch-hook-in-loop
// cost per iteration, with the runtime's measureLoop, before and after the
// fix. Prints one table per check; the figures are in
// docs/checks/torch-load-in-loop.md and docs/checks/torch-hook-in-loop.md.
//   build/bin/runtime_loop_costs [iterations]
#include <libtorch_tidy/measure.h>
#include <libtorch_tidy/series.h>

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

using libtorch_tidy::analyze;
using libtorch_tidy::measureLoop;
using libtorch_tidy::MeasureOptions;
using libtorch_tidy::Series;

namespace {

struct Row {
  double bytes_per_iteration;   // Theil-Sen slope of the live CPU bytes
  double peak_bytes;            // median peak CPU bytes within an iteration
  double allocations;           // median CPU allocations per iteration
  double seconds;               // median wall time per iteration
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Row summarise(const Series &s) {
  auto a = analyze(s);
  std::vector<double> peak, allocs;
  for (size_t i = s.warmup; i < s.samples.size(); ++i) {
    peak.push_back(double(s.samples[i].cpu_peak_bytes - s.samples[i - 1].cpu_live_bytes));
    allocs.push_back(double(s.samples[i].cpu_allocations));
  }
  return {a.cpu_bytes.slope, median(peak), median(allocs), a.seconds_per_iteration};
}

void print(const char *check, const char *variant, const Row &r) {
  std::printf("%-20s %-7s %14.0f %16.0f %12.0f %14.3f\n", check, variant, r.bytes_per_iteration,
              r.peak_bytes, r.allocations, r.seconds * 1e3);
}

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(512, 512))),
        fc2(register_module("fc2", torch::nn::Linear(512, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

} // namespace

int main(int argc, char **argv) {
  MeasureOptions opt;
  opt.iterations = argc > 1 ? std::atoi(argv[1]) : 45;
  torch::manual_seed(0);
  std::printf("%-20s %-7s %14s %16s %12s %14s\n", "check", "loop", "bytes/iter", "peak bytes/iter",
              "allocs/iter", "ms/iter");

  // torch-load-in-loop: a request loop that loads the model from the same
  // file on every request, and the same loop with the load hoisted.
  {
    std::string path = "loop_costs_model.pt";
    Net saved;
    torch::save(saved, path);
    torch::Tensor request = torch::randn({8, 512});
    torch::NoGradGuard no_grad;
    Net per_request;
    opt.name = "load-in-loop before";
    Series before = measureLoop([&] {
      torch::load(per_request, path);
      per_request->forward(request);
    }, opt);
    Net hoisted;
    torch::load(hoisted, path);
    opt.name = "load-in-loop after";
    Series after = measureLoop([&] { hoisted->forward(request); }, opt);
    print("torch-load-in-loop", "before", summarise(before));
    print("torch-load-in-loop", "after", summarise(after));
    std::remove(path.c_str());
  }

  // torch-hook-in-loop: a training step that registers a gradient hook on a
  // parameter on every step (the hook captures a 64 KiB buffer, as a hook that
  // records or rescales with a workspace would), and the step with the hook
  // registered once before the loop.
  {
    auto run = [&](bool per_step) {
      Net net;
      torch::optim::SGD sgd(net->parameters(), 0.01);
      torch::Tensor x = torch::randn({8, 512}), y = torch::randn({8, 10});
      torch::Tensor w = net->fc1->weight;
      auto hook = [](torch::Tensor g) { return g; };
      if (!per_step)
        w.register_hook([buffer = torch::zeros({16384}), hook](torch::Tensor g) { return hook(g); });
      opt.name = per_step ? "hook-in-loop before" : "hook-in-loop after";
      return measureLoop([&] {
        if (per_step)
          w.register_hook([buffer = torch::zeros({16384}), hook](torch::Tensor g) { return hook(g); });
        sgd.zero_grad();
        torch::mse_loss(net->forward(x), y).backward();
        sgd.step();
      }, opt);
    };
    print("torch-hook-in-loop", "before", summarise(run(true)));
    print("torch-hook-in-loop", "after", summarise(run(false)));
  }
  return 0;
}
