// Mock of <torch/torch.h> for the lit tests.
#pragma once
#include "mock_core.h"
#include "mock_nn.h"
#include <c10/util/Exception.h>
