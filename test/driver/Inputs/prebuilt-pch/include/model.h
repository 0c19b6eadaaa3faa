#ifndef MODEL_H
#define MODEL_H
#include <torch/torch.h>

using Model = torch::nn::Linear;

#endif
