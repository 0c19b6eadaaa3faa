#include <c10/util/C++17.h>
#include <torch/torch.h>

int main() { return 0; }
