//===--- TidyRunner.h - One clang-tidy run on one translation unit --------===//
//
// Runs `clang-tidy --load PLUGIN -p BUILD --export-fixes=TMP FILE` and reads
// the exported YAML, which holds every diagnostic clang-tidy kept (after
// NOLINT, header filters and the .clang-tidy configuration) with its fix-it.
// clang-tidy itself never writes a source file: fixes are applied once, for
// all translation units together, by Fixes.h.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_TIDYRUNNER_H
#define LIBTORCH_TIDY_DRIVER_TIDYRUNNER_H

#include "Findings.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct TidyOptions {
  std::string ClangTidy;
  std::string Plugin;
  std::string BuildDir;
  std::string Checks;       // empty: see checksFor()
  std::string HeaderFilter; // empty: clang-tidy's configuration decides
  std::string ConfigFile;
  std::vector<std::string> ExtraArgs;
  std::string VfsOverlay; // clang-tidy --vfsoverlay (the base revision's files)
  // Across translation units (docs/cross-function.md): the linked summaries
  // the checks read (option TorchSummaries), and whether the run writes the
  // unit's own summaries (TidyResult::Summaries).
  std::string Summaries;
  bool WriteSummaries = false;
  // A run that writes no summaries fails (else it has none: Summaries empty).
  bool RequireSummaries = true;
  unsigned TimeoutSeconds = 0; // 0: none; past it the run's process group is killed
  std::string TempDir;    // its temporary files (exported fixes, output); empty: the system's
  std::vector<std::string> Loads; // further clang-tidy modules to load (--load), the user's own
  // Checks turned off after the configuration's and --checks (each as
  // "-NAME"): the crash isolation's runs (CrashIsolation.h).
  std::vector<std::string> DisabledChecks;
};

/// The --checks value for File: the user's, or none when a .clang-tidy above
/// File sets Checks (clang-tidy honours it), or "-*,torch-*".
std::string checksFor(const TidyOptions &Options, llvm::StringRef File);

/// What one run adds to the plain command (see Pch.h and ResultCache.h).
struct TidyRunExtras {
  std::string Pch;         // -include-pch this file
  std::string ScopeModule; // also --load this module and enable its check
  bool ListIncludes = false; // fill TidyResult::Includes
  /// When set, File is compiled with these flags (`clang-tidy FILE -- FLAGS`,
  /// run in Directory) instead of its command in the compile database: a copy
  /// of a file (verify), which the database does not know.
  std::optional<std::vector<std::string>> CompileFlags;
  std::string Directory;
};

/// A check that crashed clang-tidy on a translation unit: without it,
/// clang-tidy ran to the end (CrashIsolation.h).
struct CheckCrash {
  std::string Check;
  std::string Signal; // "Segmentation fault (signal 11)"
  std::string Report; // the crash report: command line and clang-tidy's output
};

struct TidyResult {
  std::vector<Finding> Findings; // locations not yet resolved to lines
  bool Failed = false;           // clang-tidy did not run to the end
  bool TimedOut = false, Interrupted = false; // why, when it was stopped (Process.h)
  int Signal = 0;                // the signal clang-tidy died of (a crash, or SIGKILL)
  std::string Error;             // one line: why
  std::string CrashReport;       // Failed by a crash that no check explains: its report
  // Checks that crashed on the unit; Findings are those of the run without
  // them (the other checks'). Such a result is never cached.
  std::vector<CheckCrash> Crashes;
  // When clang-tidy died of a signal: its command line and output (for the
  // crash report); empty otherwise.
  std::vector<std::string> Command;
  std::string Output;
  double Seconds = 0;
  std::string ExportedFixes;        // the raw YAML (empty without diagnostics)
  std::vector<std::string> Includes; // every header the parse entered (ListIncludes)
  std::string Summaries;             // the unit's summaries (WriteSummaries), JSON
};

TidyResult runClangTidy(const TidyOptions &Options, llvm::StringRef File,
                        const TidyRunExtras &Extras = {});

/// True when clang-tidy died of a crash (SIGSEGV, SIGABRT, SIGBUS, SIGILL,
/// SIGFPE, SIGTRAP), not of a timeout's or an interrupt's SIGKILL.
bool crashed(const TidyResult &R);
/// True for the signals of a crash (crashed()).
bool isCrashSignal(int Signal);

/// The checks `clang-tidy --list-checks` says are enabled for File with the
/// configuration of \p Options and \p Extras (the scope module's check left
/// out: it narrows the walk, it diagnoses nothing).
llvm::Expected<std::vector<std::string>> enabledChecks(const TidyOptions &Options, llvm::StringRef File,
                                                       const TidyRunExtras &Extras = {});

/// The check of the driver's scope module (driver/scope).
inline constexpr const char *UserScopeCheck = "libtorch-tidy-user-scope";

/// Parses clang-tidy's --export-fixes YAML.
llvm::Expected<std::vector<Finding>> parseExportedFixes(llvm::StringRef Yaml);

} // namespace libtorch_tidy

#endif
