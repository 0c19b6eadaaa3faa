#include "train.h"

void prepare(torch::optim::SGD &opt) { opt.zero_grad(); }
