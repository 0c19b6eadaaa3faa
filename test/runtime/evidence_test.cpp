// The evidence of a growing loop: node types of the retained graph, the
// allocation sites of trace mode, memory_viz snapshots; and bad input (an
// undefined tensor, hooks and cycles in the graph, a full trace buffer).
#include <libtorch_tidy/evidence.h>
#include <libtorch_tidy/history.h>
#include <libtorch_tidy/memory.h>
#include <libtorch_tidy/snapshot.h>

#include <gtest/gtest.h>
#include <torch/csrc/autograd/function.h>
#include <torch/torch.h>

#include <algorithm>

namespace lt = libtorch_tidy;

namespace {

int64_t countOf(const lt::GraphWalk& w, const std::string& type) {
  for (const auto& t : w.types)
    if (t.name == type) return t.count;
  return 0;
}

bool anyMessage(const lt::Evidence& e, const std::string& part) {
  return std::any_of(e.messages.begin(), e.messages.end(),
                     [&](const std::string& m) { return m.find(part) != std::string::npos; });
}

// A leak of 1 KiB per call, in a function of its own so that its site is
// named (not inlined into the test body).
constexpr int kLeakLine = __LINE__ + 2;
__attribute__((noinline)) void leakOneKiB(std::vector<torch::Tensor>& kept) {
  kept.push_back(torch::ones({256}));
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) torch::Tensor scratch() { return torch::ones({512}) * 2; }

}  // namespace

TEST(GraphWalk, CountsTheNodeTypesOfAnAccumulatedLoss) {
  auto w = torch::ones({4}, torch::requires_grad());
  torch::Tensor total = torch::zeros({});
  for (int i = 0; i < 10; ++i) total = total + (w * 2).sum();
  lt::GraphWalk walk = lt::walkGraph({total});
  EXPECT_EQ(countOf(walk, "AddBackward0"), 10);
  EXPECT_EQ(countOf(walk, "SumBackward0"), 10);
  EXPECT_EQ(countOf(walk, "MulBackward1"), 10);  // tensor * scalar
  EXPECT_EQ(countOf(walk, "AccumulateGrad"), 1);  // the leaf, shared
  EXPECT_EQ(walk.nodes, 31);
  EXPECT_EQ(walk.nodes, lt::historySize(total));
  EXPECT_FALSE(walk.truncated);
  ASSERT_FALSE(walk.types.empty());
  EXPECT_EQ(walk.types.front().name, "AddBackward0");  // the probed tensor's own node, depth 0
}

TEST(GraphWalk, LongChainIsWalkedIterativelyAndCapped) {
  auto x = torch::ones({1}, torch::requires_grad());
  torch::Tensor y = x;
  const int n = 100000;  // a recursive walk would need megabytes of stack
  for (int i = 0; i < n; ++i) y = y + 1;
  lt::GraphWalk all = lt::walkGraph({y});
  EXPECT_EQ(all.nodes, n + 1);
  EXPECT_FALSE(all.truncated);
  lt::GraphWalk capped = lt::walkGraph({y}, 1000);
  EXPECT_EQ(capped.nodes, 1000);
  EXPECT_TRUE(capped.truncated);
  lt::Evidence e = lt::computeEvidence({{capped, capped, capped}, {}}, 0);
  EXPECT_TRUE(e.graph_truncated);
  EXPECT_TRUE(anyMessage(e, "node cap")) << e.messages.size();
}

TEST(GraphWalk, UndefinedTensorIsReportedNotFatal) {
  auto w = torch::ones({2}, torch::requires_grad());
  torch::Tensor undefined;
  lt::GraphWalk walk = lt::walkGraph({undefined, (w * 3).sum()});
  EXPECT_EQ(walk.undefined_tensors, 1);
  EXPECT_EQ(walk.nodes, 3);  // SumBackward0, MulBackward0, AccumulateGrad
  lt::Evidence e = lt::computeEvidence({{walk, walk, walk}, {}}, 0);
  EXPECT_TRUE(anyMessage(e, "undefined tensor"));
}

TEST(GraphWalk, HooksAndCyclesAreReportedAndWalkedOnce) {
  auto w = torch::ones({2}, torch::requires_grad());
  auto y = w * 2;
  // A hook that captures its own tensor: a reference cycle through the hook.
  y.register_hook([y](torch::Tensor g) { return g; });
  auto z = y.sum();
  // An edge back to an earlier node: a cycle in next_edges itself.
  auto mul = y.grad_fn();  // std::shared_ptr (1.13) or c10::intrusive_ptr (2.x) of the Node
  // (add_next_edge refuses it; the edge list itself does not.)
  mul->next_edges().push_back(torch::autograd::Edge(z.grad_fn(), 0));
  lt::GraphWalk walk = lt::walkGraph({z});
  EXPECT_EQ(walk.nodes, 3);
  EXPECT_GE(walk.hooked_nodes, 1);
  EXPECT_EQ(walk.cycles, 1);
  EXPECT_EQ(walk.cycle_at, "SumBackward0");
  lt::Evidence e = lt::computeEvidence({{walk, walk, walk}, {}}, 0);
  EXPECT_TRUE(anyMessage(e, "hooks"));
  EXPECT_TRUE(anyMessage(e, "cycle"));
}

TEST(Evidence, GrowingNodeTypesFormTheChain) {
  auto w = torch::ones({8, 8}, torch::requires_grad());
  torch::Tensor running = torch::zeros({});
  lt::EvidenceSamples samples;
  for (int i = 0; i < 20; ++i) {
    auto loss = torch::tanh(torch::mm(torch::ones({2, 8}), w)).mean();
    loss.backward();
    running = running + loss;  // the mistake: keeps every iteration's graph
    samples.graph.push_back(lt::walkGraph({running}));
  }
  lt::Evidence e = lt::computeEvidence(samples, 5);
  ASSERT_EQ(e.node_types.size(), 4u) << e.chain;
  EXPECT_EQ(e.chain, "AddBackward0 +1/it -> MeanBackward0 +1/it -> TanhBackward0 +1/it -> MmBackward0 +1/it");
  EXPECT_EQ(e.graph_nodes, 81);  // 4 per iteration and the leaf
  EXPECT_NE(lt::culprit(e).find("+4 nodes/it"), std::string::npos) << lt::culprit(e);
  EXPECT_NE(lt::toJson(e).find("\"growing_types\":[{\"type\":\"AddBackward0\""), std::string::npos);
}

TEST(Evidence, SavedBytesAreMeasuredByReleasingTheGraph) {
  lt::ScopedCountingAllocator counting;
  auto w = torch::randn({64, 64}, torch::requires_grad());
  auto x = torch::randn({128, 64});
  auto h = torch::tanh(torch::mm(x, w));  // TanhBackward0 saves its 32 KiB result
  auto loss = h.sum();
  h.reset();
  int64_t before = lt::cpuMemoryStats().live_bytes;
  EXPECT_EQ(lt::releaseSavedVariables({loss}, 0), 3);  // Sum, Tanh, Mm (not AccumulateGrad)
  EXPECT_EQ(before - lt::cpuMemoryStats().live_bytes, 128 * 64 * 4);
}

TEST(Trace, SitesNameTheLeakingFunctionAndLine) {
  if (!lt::allocationTracingCompiled()) GTEST_SKIP() << "runtime built without libbacktrace";
  lt::ScopedCountingAllocator counting;
  lt::setAllocationTracing(true);
  std::vector<torch::Tensor> kept;
  lt::EvidenceSamples samples;
  for (int i = 0; i < 20; ++i) {
    leakOneKiB(kept);
    auto s = scratch();  // freed every iteration: not a site
    samples.trace.push_back(lt::traceCounts());
  }
  lt::setAllocationTracing(false);
  lt::Evidence e = lt::computeEvidence(samples, 5);
  ASSERT_FALSE(e.sites.empty());
  const lt::SiteGrowth& top = e.sites.front();
  EXPECT_EQ(top.bytes_per_iteration, 1024);
  EXPECT_EQ(top.live_bytes, 20 * 1024);
  EXPECT_NE(top.site.find("leakOneKiB"), std::string::npos) << top.site;
  EXPECT_NE(top.site.find("evidence_test.cpp:" + std::to_string(kLeakLine)), std::string::npos) << top.site;
  EXPECT_EQ(e.sites.size(), 1u) << e.sites.back().site;
  EXPECT_NE(lt::culprit(e).find("leakOneKiB"), std::string::npos);

  // The CPU snapshot in memory_viz's format holds the leak with its frames.
  lt::Snapshot snap = lt::cpuTraceSnapshot();
  int leaks = 0;
  for (const auto& seg : snap.segments)
    for (const auto& b : seg.blocks)
      for (const auto& f : b.frames)
        if (f.user && f.function == "leakOneKiB") ++leaks;
  EXPECT_EQ(leaks, 20);
  std::string pickle = lt::snapshotPickle(snap);
  ASSERT_GE(pickle.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(pickle[0]), 0x80);  // PROTO
  EXPECT_NE(pickle.find("leakOneKiB"), std::string::npos);
  EXPECT_EQ(pickle.find("torch.jit"), std::string::npos);  // no torch classes: plain pickle
}

TEST(Trace, FullBufferIsReportedAndCountingGoesOn) {
  if (!lt::allocationTracingCompiled()) GTEST_SKIP() << "runtime built without libbacktrace";
  lt::ScopedCountingAllocator counting;
  int64_t stacks = lt::traceCounts().stacks;
  lt::setAllocationTracing(true, static_cast<int>(stacks));  // no room for a new stack
  std::vector<torch::Tensor> kept;
  lt::EvidenceSamples samples;
  int64_t live_before = lt::cpuMemoryStats().live_bytes;
  for (int i = 0; i < 10; ++i) {
    leakOneKiB(kept);
    kept.push_back(torch::zeros({512}));  // a second stack: no room
    samples.trace.push_back(lt::traceCounts());
  }
  lt::setAllocationTracing(false, 4096);
  EXPECT_EQ(lt::cpuMemoryStats().live_bytes - live_before, 10 * 3072);  // counting unaffected
  EXPECT_TRUE(samples.trace.back().full);
  EXPECT_GE(samples.trace.back().untraced_live_bytes, 10 * 2048);
  lt::Evidence e = lt::computeEvidence(samples, 0);
  EXPECT_TRUE(e.trace_full);
  EXPECT_TRUE(anyMessage(e, "trace buffer is full"));
  kept.clear();
  EXPECT_EQ(lt::cpuMemoryStats().live_bytes, live_before);
}
