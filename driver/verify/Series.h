//===--- Series.h - libtorch-tidy -------------------------------*- C++ -*-===//
//
// Memory series written by the runtime's per-iteration probe, and their
// judgement: a robust slope (Theil-Sen) in bytes and graph nodes per iteration.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_VERIFY_SERIES_H
#define LIBTORCH_TIDY_DRIVER_VERIFY_SERIES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace libtorch_tidy::verify {

/// A loop grows when its live bytes rise by at least this much per iteration.
inline constexpr double GrowthThresholdBytes = 1024.0;
/// ... or when the autograd history it keeps rises by this many nodes.
inline constexpr double GrowthThresholdNodes = 0.5;

struct Sample {
  int64_t Iteration = 0;
  double LiveBytes = 0;
  double PeakBytes = 0;
  double HistoryNodes = 0;
};

struct LoopStats {
  double BytesPerIteration = 0;
  double NodesPerIteration = 0;
  double PeakBytes = 0;
  size_t Samples = 0;
  bool Growing = false;
};

/// Median of the pairwise slopes of (X, Y).
double theilSen(const std::vector<double> &X, const std::vector<double> &Y);

/// Slopes and verdict of one loop's series; the first samples (warm-up) are skipped.
LoopStats analyse(const std::vector<Sample> &Series);

/// Reads the JSON report of a probed program: the series of each loop label.
llvm::Expected<std::map<std::string, std::vector<Sample>>> readProbeReport(llvm::StringRef Path);

} // namespace libtorch_tidy::verify

#endif // LIBTORCH_TIDY_DRIVER_VERIFY_SERIES_H
