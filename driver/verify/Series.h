//===--- Series.h - libtorch-tidy -------------------------------*- C++ -*-===//
//
// The JSON report that the runtime's per-iteration probe writes at exit
// (format "libtorch-tidy-runtime/1"): one series per probe site, each with the
// runtime's own judgement (Theil-Sen slopes, consistency, verdict), so that
// verify and the runtime never disagree about what "growing" means.
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

struct Sample {
  int64_t Iteration = 0;
  double LiveBytes = 0; ///< CPU live bytes, or CUDA allocated bytes with --device cuda
};

struct Trend {
  bool Measured = false;
  double Slope = 0;
  bool Growing = false;
};

/// One thing that grew per iteration, from the report's "evidence": an
/// allocation site ("evaluate (prog.cpp:45)") or an autograd node type.
struct Grown {
  std::string What;     ///< the site or the node type
  std::string PerIter;  ///< "+64.0 KiB/it", "+1 nodes/it"
  bool Site = false;    ///< an allocation site (else a node type)
};

struct LoopStats {
  bool Present = false;
  bool Growing = false;    ///< the runtime's verdict
  Trend Bytes, History;    ///< per iteration
  double PeakBytes = 0;
  double BytesThreshold = 1024, HistoryThreshold = 1;
  std::vector<Sample> Samples;
  std::vector<Grown> Evidence;        ///< sites first (most bytes first), then node types
  std::string Culprit;                ///< the runtime's one-line culprit
  std::vector<std::string> Messages;  ///< the runtime's notes (bad input, limits)
};

/// The items of \p Before's evidence, each with whether \p After still grows
/// it ("" when gone).
std::vector<std::pair<Grown, bool>> grownAfterFix(const LoopStats &Before, const LoopStats &After);
/// "X +64.0 KiB/it, Y +1 nodes/it" (at most \p Max items).
std::string grownText(const std::vector<Grown> &Items, size_t Max = 3);

/// The probe sites of a report (named "function:line"), by their line.
llvm::Expected<std::map<unsigned, LoopStats>> readProbeReport(llvm::StringRef Path, bool Cuda);

/// The runtime's before/after rule: "fixed", "not fixed", "regressed" or
/// "no growth observed".
std::string compareLoops(const LoopStats &Before, const LoopStats &After);

} // namespace libtorch_tidy::verify

#endif // LIBTORCH_TIDY_DRIVER_VERIFY_SERIES_H
