#include "model.h"

// Guarded through its only caller in this file.
static double score(torch::nn::Linear &m, torch::Tensor x) {
  return evaluate_batch(m, x).sum().item<double>();
}

double bench(torch::nn::Linear &m, torch::Tensor x) {
  torch::InferenceMode guard;
  return score(m, x);
}
