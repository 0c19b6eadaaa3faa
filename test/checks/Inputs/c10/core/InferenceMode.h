#pragma once
#include "../../torch/mock_core.h"
