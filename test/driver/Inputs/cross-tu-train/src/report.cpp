#include "train.h"

torch::Tensor Reporter::result() { return sum_; }
