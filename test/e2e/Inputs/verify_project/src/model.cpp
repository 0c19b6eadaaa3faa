#include "model.h"

NetImpl::NetImpl()
    : fc1(register_module("fc1", torch::nn::Linear(32, 128))),
      fc2(register_module("fc2", torch::nn::Linear(128, 4))) {}

torch::Tensor NetImpl::forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
