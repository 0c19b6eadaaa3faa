// libtorch-tidy runtime: a series of per-iteration memory samples and its
// judgement.
//
// Verdict rule (documented in docs/runtime.md): after the warm-up samples, a
// metric is *growing* when its Theil-Sen slope (median of the pairwise slopes,
// robust to the one-off jumps of allocator caches, oneDNN primitive caches and
// optimizer state created at the first step) is at least the threshold AND the
// trend is consistent: of the sample pairs (i < j) whose values differ, at
// least `consistency` (default 60 %) have the later value higher. A loop is
// growing when any of its metrics is: CPU tensor bytes, CUDA allocated bytes
// (both >= 1 KiB per iteration by default) or autograd history (>= 1 node per
// iteration).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct Sample {
  int64_t iteration = 0;
  double seconds = 0;                 // wall time of the iteration (since the previous sample)
  int64_t cpu_live_bytes = 0;         // counting allocator: live CPU tensor bytes after the iteration
  int64_t cpu_peak_bytes = 0;         // highest CPU live bytes during the iteration
  int64_t cpu_allocations = 0;        // CPU allocations during the iteration
  int64_t history_nodes = -1;         // autograd nodes reachable from the probed tensors; -1: none probed
  bool has_cuda = false;
  int64_t cuda_allocated_bytes = 0;
  int64_t cuda_peak_allocated_bytes = 0;  // during the iteration
  int64_t cuda_reserved_bytes = 0;
  int64_t cuda_alloc_retries = 0;
  int64_t cuda_ooms = 0;
};

struct Series {
  std::string name;  // e.g. the probe site "train.cpp:42"
  int warmup = 5;    // leading samples left out of the judgement
  std::vector<Sample> samples;
};

struct Thresholds {
  double bytes_per_iteration = 1024;   // CPU and CUDA bytes
  double history_per_iteration = 1;    // autograd nodes
  double consistency = 0.6;            // share of increasing pairs among differing pairs
};

struct Trend {
  bool measured = false;
  double slope = 0;        // Theil-Sen, units per iteration
  double consistency = 0;  // share of increasing pairs among differing pairs
  bool growing = false;
};

enum class Verdict { Flat, Growing };
enum class Outcome { Fixed, NotFixed, Regressed, NoGrowthObserved };

struct Analysis {
  Verdict verdict = Verdict::Flat;
  size_t measured = 0;       // samples judged (after warm-up)
  Trend cpu_bytes, cuda_bytes, history;
  int64_t peak_bytes = 0;    // highest CPU peak of the judged iterations
  int64_t held_bytes = 0;    // median CPU live bytes at the end of the judged iterations
  int64_t cuda_peak_bytes = 0;
  int64_t cuda_held_bytes = 0;
  int64_t history_last = -1;
  double seconds_per_iteration = 0;  // median
};

struct Comparison {
  Outcome outcome = Outcome::NoGrowthObserved;
  Analysis before, after;
};

// Theil-Sen slope of y over x = 0, 1, 2, ...
double theilSenSlope(const std::vector<double>& y);
// Share of pairs (i < j, y[i] != y[j]) with y[j] > y[i]; 0 when all equal.
double increasingShare(const std::vector<double>& y);

Analysis analyze(const Series& series, const Thresholds& thresholds = {});
// fixed: before grows, after is flat. not fixed: both grow. regressed: after
// grows and before did not, or after grows clearly faster (> 1.25 x + threshold).
// no growth observed: neither grows.
Comparison compare(const Series& before, const Series& after, const Thresholds& thresholds = {});

const char* toString(Verdict verdict);
const char* toString(Outcome outcome);

// One row per sample, then the analysis.
std::string toTable(const Series& series, const Analysis& analysis);
// {"name":..., "warmup":..., "analysis":{...}, "samples":[{...}, ...]}
std::string toJson(const Series& series, const Analysis& analysis);
std::string toJson(const Analysis& analysis);
// before/after side by side.
std::string toTable(const Comparison& comparison);
std::string toJson(const Comparison& comparison);

}  // namespace libtorch_tidy
