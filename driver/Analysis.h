//===--- Analysis.h - The stages of an analysis, shared by the subcommands ===//
//
// An analysis runs in four stages, each a function over the previous one's
// result, so that every subcommand (the default analysis, review, and later
// an editor server) is a small consumer of one findings model (verify runs a
// file and its copies through the same pieces: the compile database, the
// process runner, runClangTidy, the Finding model, planFixes/applyFixPlan):
//
//   planAnalysis     compile database -> translation units under the PATHs ->
//                    (--diff) those touching changed files -> LibTorch
//                    prefilter -> this shard's part; cache keys, PCH pieces.
//   runAnalysis      clang-tidy with the plugin on each unit, in parallel,
//                    through the results cache and the precompiled header.
//   collectFindings  one FindingsModel: findings located, deduplicated; the
//                    units that did not compile apart (never findings).
//   filter*          the diff (against the findings at the base revision)
//                    and the baseline take findings out, and count them.
//
// Reports (Reports.h) and the summary (printSummary) read the model.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_ANALYSIS_H
#define LIBTORCH_TIDY_DRIVER_ANALYSIS_H

#include "CompileDatabase.h"
#include "Findings.h"
#include "GitDiff.h"
#include "Reports.h"
#include "Shards.h"
#include "TidyRunner.h"
#include "SummaryModel.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

/// What a subcommand asks of the analysis (its command line, resolved).
struct AnalysisOptions {
  std::string Cwd;      // reports and messages are relative to it
  // Build directories or compile_commands.json files; empty: search
  // (CompileDatabase.h). Several: one analysis over the union of their units
  // (a file listed twice: the first database's command).
  std::vector<std::string> BuildDirs;
  std::vector<std::string> Paths;
  unsigned Jobs = 0; // 0: all cores
  bool All = false;  // also units that include no LibTorch header
  TidyOptions Tidy;  // ClangTidy and Plugin resolved by the caller
  bool UsePch = true;
  std::string PchFile; // --pch-file: a precompiled header built by the caller (UsePch is then false)
  bool UseCache = true;
  std::string CacheDir; // empty: $LIBTORCH_TIDY_CACHE_DIR, else BUILD/.libtorch-tidy-cache
  std::string CacheSize = "2G";
  std::string Shard;               // "I/N"; empty: $CI_NODE_INDEX/$CI_NODE_TOTAL
  std::optional<std::string> Diff; // --diff REV (empty REV: the default revision)
  bool Progress = false;           // the progress line on stderr
  // With Tidy.Summaries: per unit (its main file), what its analysis reads
  // from the linked summaries (SummaryDocument::dependencies); the cache key
  // holds it instead of the whole file's hash. A unit without: the file's.
  llvm::StringMap<std::string> SummaryDependencies;
  // Units (main files) left out of the plan (the summaries of the units the
  // analysis pass summarised already).
  llvm::StringSet<> Skip;
};

/// The translation units to analyse and how.
struct AnalysisPlan {
  AnalysisOptions Opt;
  CompileDatabase Db; // the union of the databases (Directory, Path: the first's)
  std::vector<std::string> Databases; // every compile_commands.json read, absolute
  size_t Selected = 0; // units under the PATHs
  std::vector<CompileCommand> Units;
  std::vector<std::string> Keys; // cache keys of Units (when cached or sharded)
  size_t SkippedNoTorch = 0, SkippedNoChange = 0, OtherShards = 0;
  std::optional<ChangedLines> Changed;
  // Canonical: every selected unit's file and the project headers it reaches
  // (Prefilter.h), whether analysed or skipped: the files this plan speaks for.
  llvm::StringSet<> Reached;
  std::optional<ShardSpec> Shard;
  std::optional<ShardInfo> ShardReport;
  std::string CacheDir;
  uint64_t CacheCap = 0;
  std::string ScopeModule, Clang; // the fast path's pieces (empty: none)
  std::string ToolId;             // the tools' identity in the cache keys (when keyed)
};

/// Every error is one line, before any unit is analysed.
llvm::Expected<AnalysisPlan> planAnalysis(AnalysisOptions Opt);

struct AnalysisRun {
  std::vector<TidyResult> Results; // one per plan unit
  size_t Hits = 0, PchRuns = 0, PchFallbacks = 0;
  std::vector<bool> FromCache; // per plan unit: its result came from the cache
  /// Per plan unit parsed without the precompiled LibTorch header while it
  /// was on: why (empty otherwise).
  std::vector<std::string> NoPchReasons;
  double Seconds = 0;
};

AnalysisRun runAnalysis(const AnalysisPlan &Plan);

/// A translation unit that could not be analysed: never a finding.
struct UnitFailure {
  std::string File;        // as displayed
  std::string Reason;      // one line: "does not compile: <first error>", or clang-tidy's
  std::string Suggestion;  // the fix, when the cause is known; else empty
  std::string Source;      // the main file, absolute (empty: File is)
  std::string CrashReport; // clang-tidy crashed with none of the unit's checks: its report
};

/// A check that crashed on a translation unit whose other checks' findings
/// are reported (CrashIsolation.h): that check's findings there are missing.
struct UnitCrash {
  std::string File;   // as displayed
  std::string Source; // the main file, absolute
  CheckCrash Crash;
};

/// The findings model every report and subcommand reads.
struct FindingsModel {
  std::unique_ptr<SourceCache> Sources = std::make_unique<SourceCache>();
  std::vector<Finding> Findings; // sorted, deduplicated; never a compiler error
  std::vector<UnitFailure> Failures;
  std::vector<UnitCrash> Crashes; // in units counted in Analysed
  size_t Analysed = 0;   // units analysed to the end
  size_t AtBase = 0;     // --diff: findings already there at the base revision
  size_t OutsideDiff = 0; // --diff without a base comparison: on unchanged lines
  size_t InBaseline = 0;
  size_t BaseUnits = 0, BaseHits = 0; // --diff: units analysed at the base, from the cache
  double BaseSeconds = 0;             // --diff: the analysis at the base (in the summary's time)
  size_t Fixed = 0;            // --fix: findings fixed (no longer in Findings)
  std::string BaseUnavailable; // --diff: why the base revision could not be analysed
};

FindingsModel collectFindings(const AnalysisPlan &Plan, AnalysisRun &Run);

/// --diff: analyses the touched units at the base revision (its text of the
/// changed files shown through a VFS overlay) and keeps the findings that are
/// new there, wherever their line is; a finding that only moved (same check,
/// file, message and line text) is counted in AtBase. When the base cannot be
/// analysed, the changed lines decide (OutsideDiff).
void filterByDiff(const AnalysisPlan &Plan, FindingsModel &Model);

/// Fingerprints (Baseline.h) relative to Root; drops the accepted findings.
void filterByBaseline(FindingsModel &Model, const llvm::StringSet<> *Accepted, llvm::StringRef Root);

/// Across translation units (docs/cross-function.md): the summaries pass.
/// The stages above over the whole compile database (the PATHs of \p Opt
/// narrow it; --diff and shards do not: every file's summaries count),
/// with the torch- checks (their findings dropped), each unit writing its
/// function summaries; the results cache keeps them, so a warm pass parses nothing.
/// They are linked by USR (SummaryModel.h: a function defined in several
/// units merges, whatever the order).
struct SummariesPass {
  clang::tidy::torch_check::SummaryDocument Linked;
  size_t Units = 0, Hits = 0;
  std::vector<UnitFailure> Failures; // units without summaries
  double Seconds = 0;
  std::string CacheDir; // the plan's; it exists when the cache or the PCH is on
  llvm::StringMap<std::string> Dependencies; // per unit: AnalysisOptions::SummaryDependencies
};
llvm::Expected<SummariesPass> summarizeProject(AnalysisOptions Opt);
/// The options' one-line error when they do not combine with summaries
/// (--config-file: the options go in --config).
llvm::Error checkSummariesUsable(const TidyOptions &Tidy);

/// --cross-tu in one parse per unit (docs/cross-function.md): \p Plan was
/// planned with Tidy.WriteSummaries (RequireSummaries off) and \p Run ran
/// it, so each unit's result holds its findings without linked summaries
/// and its own summaries, with what its checks asked of linked ones. The
/// units of the compile database outside the plan, and those that wrote no
/// summaries (no torch- check enabled there), get the summaries pass
/// (summarizeProject). The summaries are linked; a unit whose questions the
/// linked summaries answer differently from none
/// (SummaryDocument::changesAnalysisOf) is analysed again with them (cached
/// by what it reads), the others keep their findings: the result is the one
/// of the summaries pass followed by the analysis with TorchSummaries. The
/// plan and the run are updated in place (its options, keys and results are
/// those of an analysis with the linked summaries, for filterByDiff).
struct CrossUnitDecision {
  size_t Summarised = 0, SummaryHits = 0, Functions = 0; // the link
  size_t Decided = 0, DecidedHits = 0; // units analysed again with the summaries
  double Seconds = 0;                  // the summaries pass and the second analysis
  std::string LinkedPath;
  bool Temporary = false; // LinkedPath is a temporary file: the caller removes it
};
llvm::Expected<CrossUnitDecision> decideAcrossUnits(AnalysisPlan &Plan, AnalysisRun &Run);

/// The analysis every command that reports findings runs (the default
/// command, review): plan, run, with \p CrossTU link the units' summaries and
/// decide again the units that depend on them (decideAcrossUnits), collect,
/// and with --diff keep the change's findings (filterByDiff). Every error is
/// one line, before any unit is analysed but decideAcrossUnits'. The baseline
/// and the report are the command's.
struct ProjectAnalysis {
  AnalysisPlan Plan;
  AnalysisRun Run;
  FindingsModel Model;
  std::optional<CrossUnitDecision> CrossUnits; // with CrossTU
  ProjectAnalysis() = default;
  ProjectAnalysis(const ProjectAnalysis &) = delete;
  ProjectAnalysis &operator=(const ProjectAnalysis &) = delete;
  ~ProjectAnalysis(); // removes a temporary file of linked summaries
};
llvm::Expected<std::unique_ptr<ProjectAnalysis>> analyseProject(AnalysisOptions Opt, bool CrossTU);
/// The --cross-tu line of the summary: what was linked and decided again.
void printCrossUnits(const CrossUnitDecision &D, llvm::raw_ostream &OS);

/// Writes the pass's linked summaries where the analysis reads them: the
/// cache directory (content-addressed: summaries-HASH.json), else a
/// temporary file (\p Temporary set: the caller removes it). Returns the path.
llvm::Expected<std::string> storeLinkedSummaries(const SummariesPass &Pass, bool &Temporary);
/// \p Text, the linked summaries of the whole compile database, as the
/// build's latest (CACHE/summaries.json), where libtorch-tidy-clangd finds
/// them (checks/utils/SummaryLocation.h); nothing without a cache directory.
llvm::Error storeLatestSummaries(const SummariesPass &Pass, llvm::StringRef Text);

/// "1 finding", "2 findings".
std::string countOf(size_t N, llvm::StringRef Singular, llvm::StringRef Plural = "");

/// The summary lines on stderr (the counts of the plan, the run and the model).
void printSummary(const AnalysisPlan &Plan, const AnalysisRun &Run, const FindingsModel &Model,
                  llvm::raw_ostream &OS);

/// The failures, one line each, and the fixes they name; the crashed
/// checks, each with its crash report.
void printFailures(const FindingsModel &Model, llvm::raw_ostream &OS);

/// The units not analysed and the crashed checks, for the reports.
std::vector<AnalysisNotice> analysisNotices(const FindingsModel &Model);

/// One line for the exit status of a run where checks crashed: which, on how
/// many units (empty when none did).
std::string crashedChecksLine(const FindingsModel &Model);

} // namespace libtorch_tidy

#endif
