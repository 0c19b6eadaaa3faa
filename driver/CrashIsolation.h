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
#include <algorithm>
#include <string>
#include <vector>

namespace libtorch_tidy {

/// Crashing checks looked for in one unit before it is given up.
inline constexpr unsigned MaxCrashingChecks = 3;

/// What the search for crashing checks found (searchCrashingChecks).
template <typename Result> struct CrashSearch {
  struct Found {
    std::string Check;
    Result Smallest; ///< the smallest run that crashed with it on (for the report)
  };
  std::vector<Found> Crashing; ///< the crashing checks, in the order found
  Result Last;                 ///< the last run: without them, or the last crash
  bool Ended = false;          ///< Last ran to its end: without the crashing checks, nothing crashes
  bool Interrupted = false;    ///< a run was interrupted (Last); the search stopped
};

/// The search of isolateCrashes (steps 2 and 3 above) over any way of running
/// a unit: \p RunWith(Enabled) runs it with only the checks \p Enabled of
/// \p Checks on, \p IsCrash and \p IsInterrupted classify a run; \p Crashed
/// is the run with all of \p Checks on, which crashed.
template <typename Result, typename RunWithFn, typename IsCrashFn, typename IsInterruptedFn>
CrashSearch<Result> searchCrashingChecks(std::vector<std::string> Checks, Result Crashed, RunWithFn RunWith,
                                         IsCrashFn IsCrash, IsInterruptedFn IsInterrupted) {
  CrashSearch<Result> S;
  S.Last = std::move(Crashed); // invariant: the run with Checks on crashes
  while (!Checks.empty() && S.Crashing.size() < MaxCrashingChecks) {
    // One crashing check by halves: with the first half on, a crash keeps
    // that half, else the crash is the other half's.
    std::vector<std::string> Candidates = Checks;
    Result Smallest = S.Last;
    while (Candidates.size() > 1) {
      size_t Half = Candidates.size() / 2;
      std::vector<std::string> First(Candidates.begin(), Candidates.begin() + Half);
      Result R = RunWith(First);
      if (IsInterrupted(R)) {
        S.Last = std::move(R);
        S.Interrupted = true;
        return S;
      }
      if (IsCrash(R)) {
        Candidates = std::move(First);
        Smallest = std::move(R);
      } else {
        Candidates.erase(Candidates.begin(), Candidates.begin() + Half);
      }
    }
    std::string Check = Candidates.front();
    Checks.erase(std::find(Checks.begin(), Checks.end(), Check));
    S.Crashing.push_back({Check, std::move(Smallest)});
    Result Without = RunWith(Checks);
    if (IsInterrupted(Without)) {
      S.Last = std::move(Without);
      S.Interrupted = true;
      return S;
    }
    S.Ended = !IsCrash(Without);
    S.Last = std::move(Without);
    if (S.Ended)
      return S;
  }
  return S;
}

/// Writes the report of the crashed run \p Run (its Command, Output, Error) of
/// \p Check on \p File into \p Dir (the system's temporary directory when
/// empty or not writable): what crashed, the command line, clang-tidy's
/// output with its stack dump. Returns its path; empty when none was written.
std::string writeCrashReport(llvm::StringRef Dir, llvm::StringRef File, llvm::StringRef Check,
                             const TidyResult &Run, const TidyRunExtras &Extras);

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
