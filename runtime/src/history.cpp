#include <libtorch_tidy/history.h>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

#include <unordered_set>

namespace libtorch_tidy {

int64_t historySize(const std::vector<at::Tensor>& tensors) {
  using torch::autograd::Node;
  std::unordered_set<const Node*> seen;
  std::vector<Node*> stack;
  for (const at::Tensor& t : tensors) {
    if (!t.defined()) continue;
    Node* root = t.grad_fn().get();
    if (root != nullptr && seen.insert(root).second) stack.push_back(root);
  }
  // Iterative: a history carried over thousands of iterations is a long chain.
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const auto& edge : node->next_edges()) {
      Node* next = edge.function.get();
      if (next != nullptr && seen.insert(next).second) stack.push_back(next);
    }
  }
  return static_cast<int64_t>(seen.size());
}

int64_t historySize(const at::Tensor& t) { return historySize(std::vector<at::Tensor>{t}); }

}  // namespace libtorch_tidy
