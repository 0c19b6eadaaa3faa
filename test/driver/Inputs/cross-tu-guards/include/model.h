// The evaluation function is defined in src/eval.cpp; the other files call it.
#pragma once
#include <torch/torch.h>

torch::Tensor evaluate_batch(torch::nn::Linear &m, torch::Tensor x);
