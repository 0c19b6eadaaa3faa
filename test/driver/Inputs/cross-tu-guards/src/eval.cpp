#include "model.h"

// Evaluation code by its name; every caller is in another file.
torch::Tensor evaluate_batch(torch::nn::Linear &m, torch::Tensor x) { return m->forward(x); }
