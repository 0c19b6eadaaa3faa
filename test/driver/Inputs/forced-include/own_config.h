// A forced header with a macro of its own: it may change what LibTorch's
// headers mean, so it rules the shared precompiled header out.
#define PROJECT_USE_DOUBLE 1
#include <torch/torch.h>
