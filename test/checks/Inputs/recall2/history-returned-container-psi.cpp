// Recall round 2 reproducer (miss), from Nuclear-Physics-with-Machine-Learning/LibTorch_QMC
// (src/mlqm/optimizers/BaseOptimizer.cxx 180-242 and 298, walk_and_accumulate_observables; the caller
// sr_step, 320, passes the vector to recompute_energy, 454, which only divides by its values), reduced.
// Every observation stores the wavefunction's value 'w_of_x', computed with autograd on (and with the
// graphs of its first and second derivatives, create_graph=true), in a local vector that the function
// returns. Nobody backpropagates through it: the caller reads the values for a ratio. All n_loops graphs
// stay alive until the end of the optimisation step.
// Expected: a [torch-history-in-container] warning at line 35; today: none. Two causes: 'w_of_x' gets
// its history through the reference out-parameter of a helper (with 'w_of_x = wavefunction->forward(...)'
// in the loop and the vector not returned, the check warns), and the container is returned ("the caller
// may train through it"; the caller only reads its values).
#include <torch/torch.h>
#include <vector>

struct Hamiltonian {
  torch::Tensor energy(torch::nn::Linear &wf, torch::Tensor x, torch::Tensor &w_of_x) {
    x.requires_grad_(true);
    w_of_x = wf->forward(x).sum(1);
    auto dw_dx = torch::autograd::grad({w_of_x}, {x}, {torch::ones_like(w_of_x)}, true, true)[0];
    return (dw_dx * dw_dx).sum(1) / w_of_x;
  }
};

struct Optimizer {
  Hamiltonian hamiltonian;
  torch::nn::Linear wavefunction{nullptr};
  torch::Tensor walkers;

  std::vector<torch::Tensor> walk(int n_loops, torch::Tensor &energy_sum) {
    std::vector<torch::Tensor> current_psi;
    for (int i = 0; i < n_loops; ++i) {
      torch::Tensor w_of_x;
      auto energy = hamiltonian.energy(wavefunction, walkers.clone(), w_of_x);
      energy_sum = energy_sum + energy.sum().detach();
      current_psi.push_back(w_of_x);
    }
    return current_psi;
  }

  torch::Tensor step(int n_loops) {
    torch::Tensor energy_sum = torch::zeros({});
    std::vector<torch::Tensor> current_psi = walk(n_loops, energy_sum);
    torch::Tensor overlap = torch::zeros({});
    for (int i = 0; i < n_loops; ++i) {
      torch::Tensor w_new;
      hamiltonian.energy(wavefunction, walkers.clone(), w_new);
      overlap = overlap + (w_new / current_psi[i]).mean().detach();
    }
    return overlap;
  }
};
