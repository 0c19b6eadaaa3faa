// Recall round 2 reproducer (miss), from Nuclear-Physics-with-Machine-Learning/LibTorch_QMC
// (src/mlqm/sampler/MetropolisSampler.cxx 81 and 164, MetropolisSampler::kick, called through
// BaseOptimizer::equilibrate in the loop of walk_and_accumulate_observables, BaseOptimizer.cxx 183-188,
// and once more per sr_step), reduced. Every call converts the whole wavefunction module to float32
// and back to float64 ('wavefunction->to(torch::kFloat32)' ... 'wavefunction->to(torch::kFloat64)'):
// two walks over every parameter and two copies of each, on every iteration of the observation loop
// (the round trip also truncates the float64 weights to float32 precision).
// Expected: a [torch-module-to-device-in-loop] warning at the call in the loop (line 38), with a note at
// the moves in the helper (lines 20 and 27); today: none (the page's limitation: a move inside a
// function the loop calls is not seen).
#include <torch/torch.h>

struct Sampler {
  torch::Tensor x;
  torch::Tensor kick(int n_kicks, torch::nn::Linear wavefunction);
};

torch::Tensor Sampler::kick(int n_kicks, torch::nn::Linear wavefunction) {
  x = x.to(torch::kFloat32);
  wavefunction->to(torch::kFloat32);
  torch::Tensor acceptance = torch::zeros({1});
  {
    c10::InferenceMode guard(true);
    for (int i = 0; i < n_kicks; ++i)
      acceptance += wavefunction->forward(x).mean();
  }
  wavefunction->to(torch::kFloat64);
  x = x.to(torch::kFloat64);
  return acceptance;
}

struct Optimizer {
  Sampler sampler;
  torch::nn::Linear wavefunction{nullptr};
  torch::Tensor walk(int n_loops, int n_void_steps) {
    torch::Tensor total = torch::zeros({1});
    for (int i = 0; i < n_loops; ++i) {
      auto acceptance = sampler.kick(n_void_steps, wavefunction);
      total += acceptance;
    }
    return total;
  }
};
