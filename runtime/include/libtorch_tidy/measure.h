// libtorch-tidy runtime: run a step function and judge its memory.
#pragma once

#include <libtorch_tidy/evidence.h>
#include <libtorch_tidy/series.h>

#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct MeasureOptions {
  int warmup = 5;        // iterations run before the judged ones (still sampled)
  int iterations = 45;   // judged iterations: 5 + 45 = 50 in all by default
  Thresholds thresholds;
  // Tensors whose autograd history is sampled after each step (optional).
  std::function<std::vector<at::Tensor>()> history_of;
  std::string name = "step";
};

// Installs the counting allocator, runs `step` warmup + iterations times,
// samples after each, uninstalls it, returns the series.
Series measureLoop(const std::function<void()>& step, const MeasureOptions& options = {});
// The same, also collecting each sample's evidence (the graph of
// history_of's tensors; allocation sites while tracing is on) for
// computeEvidence().
Series measureLoop(const std::function<void()>& step, const MeasureOptions& options, EvidenceSamples* evidence);

// One sample of the process's state now (counting allocator, CUDA, history of
// `tensors`). The CPU peak window and the CUDA peak restart after it.
Sample sampleNow(const std::vector<at::Tensor>* tensors = nullptr);

}  // namespace libtorch_tidy
