// The C++ half of the GradScaler parity test (test/runtime/amp_parity.py):
// reads a scripted scenario, drives libtorch_tidy::amp::GradScaler through
// it, prints scales, growth trackers, which optimizers stepped and every
// parameter after every step, floats in hexadecimal (exact).
//   amp_parity SCENARIO [auto|composite]
// Scenario (one item a line, floats as C99 hex / inf / nan):
//   scaler INIT_SCALE GROWTH_FACTOR BACKOFF_FACTOR GROWTH_INTERVAL
//   optimizer NAME LR MOMENTUM
//   param NAME float32|bfloat16 OPTIMIZER V1 V2 ...
//   step UNSCALE_FIRST(optimizer name or -) SAVE_LOAD(0|1) NEW_SCALE(float or -) G... (all params in order)
// Output, a line per step:
//   step I scale S tracker T stepped NAME=0|1 ... param NAME V1 V2 ... param ...
#include <libtorch_tidy/amp.h>

#include <torch/torch.h>
#include <torch/version.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace amp = libtorch_tidy::amp;

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::cerr << "amp_parity: " << message << "\n";
  std::exit(2);
}

double number(const std::string& token) {
  char* end = nullptr;
  double v = std::strtod(token.c_str(), &end);
  if (end == token.c_str() || *end != '\0') fail("not a number: " + token);
  return v;
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

struct Param {
  std::string name;
  torch::Tensor tensor;
  std::string optimizer;
};

// An SGD that records whether its step ran.
struct Optimizer {
  std::string name;
  std::unique_ptr<torch::optim::SGD> sgd;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) fail("usage: amp_parity SCENARIO [auto|composite]");
  std::ifstream in(argv[1]);
  if (!in) fail(std::string("cannot read ") + argv[1]);
  std::string mode = argc == 3 ? argv[2] : "auto";
  if (mode != "auto" && mode != "composite") fail("mode must be auto or composite");

  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);

  double init_scale = 65536, growth = 2, backoff = 0.5;
  int64_t interval = 2000;
  std::vector<Param> params;
  std::vector<std::pair<std::string, std::pair<double, double>>> optimizer_specs;
  std::vector<std::vector<std::string>> steps;
  for (const auto& line : lines) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string t; words >> t;) w.push_back(t);
    if (w[0] == "scaler" && w.size() == 5) {
      init_scale = number(w[1]);
      growth = number(w[2]);
      backoff = number(w[3]);
      interval = static_cast<int64_t>(number(w[4]));
    } else if (w[0] == "optimizer" && w.size() == 4) {
      optimizer_specs.push_back({w[1], {number(w[2]), number(w[3])}});
    } else if (w[0] == "param" && w.size() >= 5) {
      std::vector<float> values;
      for (size_t i = 4; i < w.size(); ++i) values.push_back(static_cast<float>(number(w[i])));
      auto dtype = w[2] == "bfloat16" ? torch::kBFloat16 : torch::kFloat;
      if (w[2] != "bfloat16" && w[2] != "float32") fail("dtype: " + w[2]);
      params.push_back({w[1], torch::tensor(values).to(dtype).set_requires_grad(true), w[3]});
    } else if (w[0] == "step") {
      steps.push_back(w);
    } else {
      fail("bad line: " + line);
    }
  }

  std::vector<Optimizer> optimizers;
  for (const auto& [name, spec] : optimizer_specs) {
    std::vector<torch::Tensor> mine;
    for (auto& p : params)
      if (p.optimizer == name) mine.push_back(p.tensor);
    auto sgd = std::make_unique<torch::optim::SGD>(mine, torch::optim::SGDOptions(spec.first).momentum(spec.second));
    optimizers.push_back({name, std::move(sgd)});
  }

  auto scaler = std::make_unique<amp::GradScaler>(init_scale, growth, backoff, interval);
  auto kernels = mode == "composite" ? amp::GradScaler::Kernels::Composite : amp::GradScaler::Kernels::Auto;
  scaler->set_kernels(kernels);
  bool fused = mode == "auto" && amp::fusedScalerKernelsAvailable(c10::DeviceType::CPU);
  std::cout << "libtorch " << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR << "." << TORCH_VERSION_PATCH
            << " kernels " << (fused ? "fused" : "composite") << "\n";

  for (size_t s = 0; s < steps.size(); ++s) {
    const auto& w = steps[s];
    size_t k = 4;
    for (auto& o : optimizers) o.sgd->zero_grad();
    torch::Tensor loss = torch::zeros({});
    for (auto& p : params) {
      std::vector<float> g;
      for (int64_t i = 0; i < p.tensor.numel(); ++i) {
        if (k >= w.size()) fail("step " + std::to_string(s) + ": too few gradient values");
        g.push_back(static_cast<float>(number(w[k++])));
      }
      loss = loss + (p.tensor.to(torch::kFloat) * torch::tensor(g)).sum();
    }
    if (k != w.size()) fail("step " + std::to_string(s) + ": too many gradient values");
    scaler->scale(loss).backward();
    std::map<std::string, bool> stepped;
    for (auto& o : optimizers) {
      if (w[1] == o.name) scaler->unscale_(*o.sgd);
      stepped[o.name] = scaler->step(*o.sgd);
    }
    if (w[3] == "-") {
      scaler->update();
    } else {
      scaler->update(number(w[3]));
    }
    if (w[2] == "1") {  // save, then continue with a new scaler loaded from it
      std::stringstream archive;
      torch::save(*scaler, archive);
      scaler = std::make_unique<amp::GradScaler>();
      scaler->set_kernels(kernels);
      torch::load(*scaler, archive);
    }
    std::cout << "step " << s << " scale " << hex(scaler->get_scale()) << " tracker " << scaler->get_growth_tracker()
              << " stepped";
    for (auto& o : optimizers) std::cout << " " << o.name << "=" << (stepped[o.name] ? 1 : 0);
    for (auto& p : params) {
      std::cout << " param " << p.name;
      auto values = p.tensor.detach().to(torch::kFloat).contiguous();
      for (int64_t i = 0; i < values.numel(); ++i) std::cout << " " << hex(values.data_ptr<float>()[i]);
    }
    std::cout << "\n";
  }
  return 0;
}
