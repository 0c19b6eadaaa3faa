// libtorch-tidy runtime: the evidence behind a `growing` verdict, i.e. *what*
// grows and *where*.
//
// - Retained graph: the autograd nodes reachable from the probed tensors, by
//   node type (AddBackward0, MseLossBackward0, ...), walked iteratively with a
//   node cap; per iteration, the types whose count grows and their chain from
//   the probed tensor outwards.
// - Allocation sites (LIBTORCH_TIDY_TRACE=1): the counting allocator records a
//   short stack per live CPU allocation (captured with boost::stacktrace,
//   symbolized with libbacktrace to function, file and line); per iteration,
//   the sites whose live bytes grow, named by the first frame of the program's
//   own code.
// - CUDA snapshot: the caching allocator's snapshot in the pickle format of
//   PyTorch's memory_viz (see snapshot.h).
#pragma once

#include <libtorch_tidy/series.h>

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace libtorch_tidy {

// ---- Retained graph -------------------------------------------------------

struct GraphWalk {
  int64_t nodes = 0;                 // distinct nodes reached (AccumulateGrad of leaves included)
  bool truncated = false;            // stopped at max_nodes: `nodes` is a lower bound
  int64_t undefined_tensors = 0;     // probed tensors that were undefined (skipped)
  int64_t hooked_nodes = 0;          // nodes carrying hooks (not walked into)
  int64_t cycles = 0;                // edges back to a node on the current path
  std::string cycle_at;              // type of the first node closing a cycle
  uint64_t max_sequence_nr = 0;      // newest node (per-thread creation counter)
  double seconds = 0;                // cost of the walk
  struct Type {
    std::string name;                // e.g. "AddBackward0"
    int64_t count = 0;
    int64_t depth = 0;               // shortest path length from a probed tensor found
  };
  std::vector<Type> types;           // sorted by depth, then name
};

// Default node cap of a walk (LIBTORCH_TIDY_GRAPH_MAX_NODES overrides it in the probe).
constexpr int64_t kDefaultGraphMaxNodes = 1000000;

// Walks the grad_fn graphs of `tensors` (iterative, each node once).
GraphWalk walkGraph(const std::vector<at::Tensor>& tensors, int64_t max_nodes = kDefaultGraphMaxNodes);

// Destructive: releases the saved variables of the nodes reachable from
// `tensors` whose sequence number is above `after_sequence_nr` (0: all), as
// backward() does. The program must not call backward on that graph again:
// the probe uses it only when it ends the program at the iteration cap, to
// measure the bytes the graph held. Returns the number of nodes released.
int64_t releaseSavedVariables(const std::vector<at::Tensor>& tensors, uint64_t after_sequence_nr,
                              int64_t max_nodes = kDefaultGraphMaxNodes);

// ---- Allocation sites (counting allocator, trace mode) ---------------------

// True when this runtime was built with the stack tracer (boost::stacktrace).
bool allocationTracingCompiled();
// Turns tracing of CPU allocations on or off (LIBTORCH_TIDY_TRACE=1 turns it
// on when the counting allocator is first used). Allocations made while it is
// off carry no stack. `max_stacks`: distinct stacks kept (the trace buffer);
// `depth`: frames captured per allocation.
void setAllocationTracing(bool on, int max_stacks = 4096, int depth = 48);
bool allocationTracing();

struct TraceCounts {
  std::vector<std::pair<uint32_t, int64_t>> live;  // (stack id, live bytes), ids with live bytes != 0
  int64_t untraced_live_bytes = 0;                 // live bytes allocated while the buffer was full
  bool full = false;                               // the stack table filled up
  int64_t stacks = 0;                              // distinct stacks recorded
};
// The live bytes per stack now (cheap: one pass over the stack table).
TraceCounts traceCounts();

struct Frame {
  std::string function;  // shortened: no parameter list
  std::string file;      // "" when the object has no line information (build with -g)
  int line = 0;
  bool user = false;     // in the program's own code (not LibTorch, the runtime or system libraries)
};
// The frames of a recorded stack, innermost first, symbolized.
std::vector<Frame> traceStack(uint32_t id);

// ---- Evidence of a loop ----------------------------------------------------

struct NodeTypeGrowth {
  std::string type;
  double per_iteration = 0;  // Theil-Sen slope of the count over the judged samples
  int64_t last = 0;          // count at the last sample
  int64_t depth = 0;
};

struct SiteGrowth {
  std::string site;          // "function file:line" of the first frame of the program, or of LibTorch
  std::vector<std::string> stack;  // that frame and its callers in the program, then the LibTorch call
  double bytes_per_iteration = 0;
  int64_t live_bytes = 0;    // at the last sample
};

struct Evidence {
  // retained graph (probe with tensors)
  bool graph_sampled = false;
  std::vector<NodeTypeGrowth> node_types;  // growing types, by depth
  std::string chain;                       // "AddBackward0 +1/it -> MseLossBackward0 +1/it -> ..."
  int64_t graph_nodes = 0;                 // at the last sample
  bool graph_truncated = false;
  double graph_walk_seconds = 0;           // median cost of one walk
  int64_t saved_bytes_last_iteration = -1; // released from the last iteration's nodes at the cap; -1: not measured
  int64_t saved_bytes_graph = -1;          // released from the whole graph at the cap
  // allocation sites (LIBTORCH_TIDY_TRACE=1)
  bool trace_enabled = false;
  std::vector<SiteGrowth> sites;           // growing sites, most bytes per iteration first
  bool trace_full = false;
  // memory_viz snapshots written for this loop (see snapshot.h): the CUDA
  // caching allocator's, and the traced live CPU allocations
  std::string snapshot;
  std::string cpu_snapshot;
  // bad input, limits reached: one sentence each
  std::vector<std::string> messages;
};

// Per-sample raw material the probe keeps (one entry per sample).
struct EvidenceSamples {
  std::vector<GraphWalk> graph;     // empty: no tensors probed
  std::vector<TraceCounts> trace;   // empty: tracing off
};

// Growing node types and sites over the judged samples (after `warmup`).
Evidence computeEvidence(const EvidenceSamples& samples, int warmup, const Thresholds& thresholds = {},
                         size_t max_sites = 5);

// The one-line culprit of a growing loop ("" when the evidence names none).
std::string culprit(const Evidence& evidence);
std::string toJson(const Evidence& evidence);
// toTable(series, analysis) followed by the culprit of a growing loop, the
// chain of grown node types, the grown sites and the evidence's messages.
std::string toTable(const Series& series, const Analysis& analysis, const Evidence& evidence);

}  // namespace libtorch_tidy
