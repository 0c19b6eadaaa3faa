//===--- Fixes.h - Apply fix-its once across translation units ------------===//
//
// Several translation units that include one header each report the header's
// findings with the same fix-it. The fix-its of all findings are merged: an
// identical replacement is applied once; a finding whose fix-it overlaps a
// different, already accepted one is left unfixed (all of its replacements or
// none, as clang-apply-replacements does). Each file is rewritten atomically
// (a temporary file beside it, then rename), so no file is ever half-written.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_FIXES_H
#define LIBTORCH_TIDY_DRIVER_FIXES_H

#include "Findings.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct FixPlan {
  /// File -> its replacements, sorted, non-overlapping, deduplicated.
  std::map<std::string, std::vector<Replacement>> Files;
  std::vector<const Finding *> Fixed;       // findings whose fix-it is in the plan
  std::vector<const Finding *> Conflicting; // findings left unfixed
};

FixPlan planFixes(const std::vector<Finding> &Findings);

/// Applies Replacements (sorted, non-overlapping) to Text.
llvm::Expected<std::string> applyReplacements(llvm::StringRef Text,
                                              const std::vector<Replacement> &Replacements);

/// Applies the plan; returns the number of files changed. Every file's new
/// text is computed before the first one is written.
llvm::Expected<unsigned> applyFixPlan(const FixPlan &Plan);

} // namespace libtorch_tidy

#endif
