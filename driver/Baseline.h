//===--- Baseline.h - Accept today's findings, report only new ones -------===//
//
// A finding's fingerprint is a hash of its check, its file (relative to the
// baseline's directory), the text of its line with whitespace collapsed, and
// its occurrence index among the findings with the same check, file and line
// text. Edits elsewhere that shift lines keep it; editing the flagged line
// changes it (the finding is then reported again, as it should be).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_BASELINE_H
#define LIBTORCH_TIDY_DRIVER_BASELINE_H

#include "Findings.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace libtorch_tidy {

/// Fills Finding::Fingerprint; paths are made relative to Root.
void computeFingerprints(std::vector<Finding> &Findings, SourceCache &Sources, llvm::StringRef Root);

llvm::Expected<llvm::StringSet<>> readBaseline(llvm::StringRef Path);
/// The baseline file's text (JSON).
std::string baselineText(const std::vector<Finding> &Findings, llvm::StringRef Root);

} // namespace libtorch_tidy

#endif
