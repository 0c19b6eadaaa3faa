// Does not compile: the translation unit cannot be analysed.
#include <torch/torch.h>
torch::Tensor broken(torch::Tensor x) { return x.no_such_method(); }
