#pragma once
#include <torch/torch.h>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : fc1(register_module("fc1", torch::nn::Linear(8, MODEL_WIDTH))),
        out(register_module("out", torch::nn::Linear(MODEL_WIDTH, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return out(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, out;
};
TORCH_MODULE(Classifier);

double evaluate(Classifier &model, const std::vector<torch::Tensor> &batches);
