// Three files call each other in a chain: src/main.cpp calls the helpers of
// src/batch.cpp, which call those of src/model.cpp.
#pragma once
#include <torch/torch.h>

torch::Tensor apply_model(torch::nn::Linear &m, torch::Tensor x);
void finetune(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x);
torch::Tensor run_batch(torch::nn::Linear &m, torch::Tensor x);
torch::Tensor run_guarded(torch::nn::Linear &m, torch::Tensor x);
void tune_batch(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x);
void prepare(torch::nn::Linear &m);
void step_prepared(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x);
void step_plain(torch::nn::Linear &m, torch::optim::SGD &opt, torch::Tensor x);
