// libtorch-tidy runtime: the size of the autograd history reachable from a
// tensor, as a number of graph nodes. Catches retained history even when the
// tensor bytes are small: a loss accumulated after backward() already freed
// the saved buffers still keeps one chain of nodes per iteration alive.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace libtorch_tidy {

// Nodes reachable from t.grad_fn() through next_edges (each counted once;
// AccumulateGrad nodes of leaves included). 0 for tensors without grad_fn.
int64_t historySize(const at::Tensor& t);
// Nodes reachable from any of the tensors (their union).
int64_t historySize(const std::vector<at::Tensor>& tensors);

}  // namespace libtorch_tidy
