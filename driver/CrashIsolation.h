//===--- CrashIsolation.h - One crashing check never costs a file ---------===//
//
// When clang-tidy dies of a signal on a translation unit, the crash is almost
// always one check's (a null dereference, a failed assertion, a stack
// overflow in a traversal of unusual code), not the parse's. Reporting the
// whole unit as not analysed would lose every other check's findings there,
// so the unit is run again with subsets of its enabled checks (the list
// `clang-tidy --list-checks` gives for it, whatever the configuration) until
// the run without the crashing checks ends:
//
//   1. a probe with none of them enabled: when it crashes too, the compiler
//      or clang-tidy itself crashed, and the unit is not analysed (as before);
//   2. a binary search for one crashing check: enable half of the candidates;
//      a crash keeps that half, else the other half (log2(N) runs);
//   3. the run without it: when it ends, its findings are the unit's; when it
//      crashes, step 2 again on the rest, for at most MaxCrashingChecks.
//
// So one crashing check of N costs 2 + log2(N) more parses of that unit,
// each crashing check the same again. The checks are only ever taken out of
// the user's configuration (`--checks=...,-NAME`), never added, so its
// CheckOptions and the other checks' findings are the ones of a plain run.
// Each crash has a report file for a bug report: the command line that
// crashed and clang-tidy's output (its stack dump).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_CRASHISOLATION_H
#define LIBTORCH_TIDY_DRIVER_CRASHISOLATION_H

#include "TidyRunner.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace libtorch_tidy {

/// Crashing checks looked for in one unit before it is given up.
inline constexpr unsigned MaxCrashingChecks = 3;

/// \p Crashed is the result of runClangTidy(Options, File, Extras), which
/// died of a crash (crashed()). Returns the result of the run without the
/// checks that crash (their names, signals and reports in Crashes), or a
/// failed result that says why no check explains the crash, with its report.
/// Reports go to \p ReportDir (created when missing), else to the system's
/// temporary directory.
TidyResult isolateCrashes(const TidyOptions &Options, llvm::StringRef File, const TidyRunExtras &Extras,
                          TidyResult Crashed, llvm::StringRef ReportDir);

} // namespace libtorch_tidy

#endif
