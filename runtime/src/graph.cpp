// The retained autograd graph of probed tensors, by node type: an iterative
// depth-first walk (explicit stack: a history carried over 10^6 iterations is
// a 10^6-node chain), each node once, with a node cap, cycle detection and a
// count of the nodes that carry hooks.
#include <libtorch_tidy/evidence.h>

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <typeindex>
#include <unordered_map>

namespace libtorch_tidy {
namespace {

using torch::autograd::Node;

// "torch::autograd::generated::AddBackward0" -> "AddBackward0"; the namespace
// is cut before any template argument list.
std::string shortTypeName(const std::string& full) {
  size_t angle = full.find('<');
  size_t colon = full.rfind("::", angle == std::string::npos ? std::string::npos : angle);
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

size_t hooksOf(const Node* n) {
  auto* node = const_cast<Node*>(n);
  size_t h = node->pre_hooks().size() + node->post_hooks().size();
#if TORCH_VERSION_MAJOR >= 2
  h += node->tensor_pre_hooks().size();
#endif
  return h;
}

constexpr uint64_t kAccumulateGradSequenceNr = UINT64_MAX;

// Depth-first over next_edges. `visit(node, depth)` for each node reached.
template <class Visit>
void walk(const std::vector<at::Tensor>& tensors, int64_t max_nodes, GraphWalk* out, Visit visit) {
  enum : uint8_t { kOnPath, kDone };
  std::unordered_map<const Node*, uint8_t> state;
  struct Frame {
    Node* node;
    size_t edge;
    int64_t depth;
  };
  std::vector<Frame> stack;
  bool capped = false;
  auto enter = [&](Node* n, int64_t depth) {
    if (static_cast<int64_t>(state.size()) >= max_nodes) {
      capped = true;
      return;
    }
    state.emplace(n, kOnPath);
    visit(n, depth);
    stack.push_back({n, 0, depth});
  };
  for (const at::Tensor& t : tensors) {
    if (!t.defined()) {
      if (out) ++out->undefined_tensors;
      continue;
    }
    Node* root = t.grad_fn().get();
    if (root == nullptr || state.count(root)) continue;
    enter(root, 0);
    while (!stack.empty() && !capped) {
      Frame& f = stack.back();
      const auto& edges = f.node->next_edges();
      if (f.edge >= edges.size()) {
        state[f.node] = kDone;
        stack.pop_back();
        continue;
      }
      Node* next = edges[f.edge++].function.get();
      if (next == nullptr) continue;
      auto it = state.find(next);
      if (it == state.end()) {
        enter(next, f.depth + 1);
      } else if (it->second == kOnPath && out) {
        if (out->cycles++ == 0) out->cycle_at = shortTypeName(next->name());
      }
    }
    if (capped) break;
  }
  if (out) {
    out->truncated = capped;
    out->nodes = static_cast<int64_t>(state.size());
  }
}

}  // namespace

GraphWalk walkGraph(const std::vector<at::Tensor>& tensors, int64_t max_nodes) {
  auto start = std::chrono::steady_clock::now();
  GraphWalk out;
  struct PerType {
    const Node* example;
    int64_t count;
    int64_t depth;
  };
  std::unordered_map<std::type_index, PerType> types;
  walk(tensors, max_nodes, &out, [&](const Node* n, int64_t depth) {
    auto [it, inserted] = types.try_emplace(std::type_index(typeid(*n)), PerType{n, 0, depth});
    ++it->second.count;
    it->second.depth = std::min(it->second.depth, depth);
    if (hooksOf(n) > 0) ++out.hooked_nodes;
    uint64_t seq = n->sequence_nr();
    if (seq != kAccumulateGradSequenceNr) out.max_sequence_nr = std::max(out.max_sequence_nr, seq);
  });
  for (const auto& [type, t] : types) out.types.push_back({shortTypeName(t.example->name()), t.count, t.depth});
  std::sort(out.types.begin(), out.types.end(), [](const GraphWalk::Type& a, const GraphWalk::Type& b) {
    return a.depth != b.depth ? a.depth < b.depth : a.name < b.name;
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

int64_t releaseSavedVariables(const std::vector<at::Tensor>& tensors, uint64_t after_sequence_nr,
                              int64_t max_nodes) {
  std::vector<Node*> nodes;
  walk(tensors, max_nodes, nullptr, [&](const Node* n, int64_t) {
    uint64_t seq = n->sequence_nr();
    if (seq != kAccumulateGradSequenceNr && (after_sequence_nr == 0 || seq > after_sequence_nr))
      nodes.push_back(const_cast<Node*>(n));
  });
  for (Node* n : nodes) n->release_variables();
  return static_cast<int64_t>(nodes.size());
}

}  // namespace libtorch_tidy
