#pragma once
#include <thirdparty/config.h>
#include <torch/torch.h>
