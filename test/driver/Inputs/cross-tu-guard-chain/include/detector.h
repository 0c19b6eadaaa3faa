// A detector in three files: the application (app.cpp) calls detect()
// (pipeline.cpp) under a guard; detect() calls the head's evaluation function
// (head.cpp), named like evaluation, with no guard of its own.
#pragma once
#include <torch/torch.h>

torch::Tensor evaluate_head(torch::nn::Linear &m, torch::Tensor x);
torch::Tensor detect(torch::nn::Linear &m, torch::Tensor x);
