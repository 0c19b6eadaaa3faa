#include "detector.h"

torch::Tensor evaluate_head(torch::nn::Linear &m, torch::Tensor x) { return m->forward(x); }
