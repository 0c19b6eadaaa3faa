//===--- AnalyzeCommand.cpp - The analysis of a whole project -------------===//
//
// compile database -> translation units under PATHs -> (--diff) those touching
// changed files -> LibTorch prefilter -> clang-tidy with the plugin, in
// parallel -> findings (deduplicated, located, filtered by the diff and the
// baseline) -> report, fixes, baseline, summary, exit code.
//
//===----------------------------------------------------------------------===//
#include "AnalyzeCommand.h"
#include "Analysis.h"
#include "AtomicWrite.h"
#include "AnalysisFlags.h"
#include "Baseline.h"
#include "CompileDatabase.h"
#include "Findings.h"
#include "Fixes.h"
#include "GitDiff.h"
#include "LLVMCompat.h"
#include "Pch.h"
#include "Prefilter.h"
#include "Reports.h"
#include "ResultCache.h"
#include "Shards.h"
#include "TidyRunner.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/FormatVariadic.h"
#include <atomic>
#include <mutex>
#include <chrono>
#include <condition_variable>
#include <map>
#include <set>

namespace libtorch_tidy {
namespace cl = llvm::cl;

namespace {

const char Overview[] =
    "libtorch-tidy: the torch- clang-tidy checks over a whole project\n\n"
    "Reads compile_commands.json, skips the translation units that cannot involve LibTorch,\n"
    "runs clang-tidy with the LibTorchTidy plugin on the others in parallel and reports the\n"
    "findings. PATHs (files or directories) restrict the analysis to the translation units\n"
    "under them. Exit status: 0 no findings, 1 findings, 2 usage or environment error or a\n"
    "translation unit not analysed, 4 a check crashed on some translation unit (the other\n"
    "checks' findings are reported, and the crash report named), 5 findings and some\n"
    "translation units not analysed.\n";

/// The default command's options besides the analysis's (AnalysisFlags.h).
struct Options : AnalysisFlags, CrossUnitFlag {
  cl::opt<bool> Fix{"fix", cl::desc("Apply the fix-its (each once, files rewritten atomically)"),
                    cl::cat(driverCategory())};
  cl::opt<std::string> Format{"format", cl::desc("Report format: text, json, sarif, github, gitlab, rdjson"),
                              cl::value_desc("format"), cl::init("text"), cl::cat(driverCategory())};
  cl::opt<std::string> Output{"output", cl::desc("Write the report to FILE instead of stdout"),
                              cl::value_desc("file"), cl::cat(driverCategory())};
  cl::alias OutputShort{"o", cl::desc("Alias for --output"), cl::aliasopt(Output)};
  cl::opt<std::string> Baseline{"baseline", cl::desc("Report only findings not in this baseline"),
                                cl::value_desc("file"), cl::cat(driverCategory())};
  cl::opt<std::string> WriteBaseline{"write-baseline",
                                     cl::desc("Write today's findings as a baseline and exit 0"),
                                     cl::value_desc("file"), cl::cat(driverCategory())};
  cl::opt<bool> ListChecks{"list-checks", cl::desc("List the torch- checks and exit"),
                           cl::cat(driverCategory())};
  cl::opt<std::string> Explain{"explain", cl::desc("Print a check's documentation and exit"),
                               cl::value_desc("check"), cl::cat(driverCategory())};
};

/// Fails early (before any analysis) when a report file cannot be written.
std::optional<std::string> checkWritable(llvm::StringRef Option, llvm::StringRef Path) {
  if (Path.empty() || Path == "-")
    return std::nullopt;
  std::string Abs = makeAbsolute(Path);
  if (llvm::sys::fs::is_directory(Abs))
    return ("--" + Option + " " + Path + ": is a directory").str();
  llvm::StringRef Dir = llvm::sys::path::parent_path(Abs);
  if (!llvm::sys::fs::is_directory(Dir))
    return ("--" + Option + " " + Path + ": directory " + Dir + " does not exist").str();
  if (llvm::sys::fs::access(Dir, llvm::sys::fs::AccessMode::Write) ||
      (llvm::sys::fs::exists(Abs) && llvm::sys::fs::access(Abs, llvm::sys::fs::AccessMode::Write)))
    return ("--" + Option + " " + Path + ": not writable").str();
  return std::nullopt;
}

/// The torch- checks the plugin registers, from `clang-tidy --list-checks`.
llvm::Expected<std::vector<std::string>> registeredChecks(const std::string &Tidy,
                                                          const std::string &Plugin) {
  ProcessResult R = runProcess(Tidy, {Tidy, "--load=" + Plugin, "--checks=-*,torch-*", "--list-checks"},
                               120);
  if (!R.Error.empty() || R.ExitCode != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s cannot load %s", Tidy.c_str(), Plugin.c_str());
  std::vector<std::string> Checks;
  llvm::StringRef Out = R.Output;
  while (!Out.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Out) = Out.split('\n');
    Line = Line.trim();
    if (Line.starts_with("torch-"))
      Checks.push_back(Line.str());
  }
  return Checks;
}

} // namespace

ExitCode analysisExit(bool NotAnalysed, bool Crashed, bool Findings) {
  if (NotAnalysed)
    return Findings ? ExitFindingsIncomplete : ExitError;
  if (Crashed)
    return ExitCheckCrashed;
  return Findings ? ExitFindings : ExitClean;
}

int runAnalyzeCommand(int Argc, const char **Argv) {
  Options Opt;
  if (auto Error = parseDriverCommandLine(Argc, Argv, Overview))
    return fail(*Error);
  auto Format = parseReportFormat(Opt.Format);
  if (!Format)
    return fail("--format " + Opt.Format + ": not one of text, json, sarif, github, gitlab, rdjson");
  const std::string Cwd = currentDir();

  // --explain needs only the docs.
  if (!Opt.Explain.empty()) {
    std::string Docs = findDocsDir();
    if (Docs.empty())
      return fail("the check docs are not installed beside " + selfPath());
    // The check's id, with or without its torch- prefix.
    std::string Id = Opt.Explain;
    if (!llvm::StringRef(Id).starts_with("torch-"))
      Id = "torch-" + Id;
    llvm::SmallString<256> Page(Docs);
    llvm::sys::path::append(Page, "checks", Id + ".md");
    auto Buf = llvm::MemoryBuffer::getFile(Page);
    if (!Buf || llvm::StringRef(Id).contains('/') || llvm::StringRef(Id).contains('.'))
      return fail("no check named '" + Opt.Explain + "' (see --list-checks)");
    llvm::outs() << (*Buf)->getBuffer();
    return ExitClean;
  }

  auto Requested = Opt.options(Cwd);
  if (!Requested)
    return fail(Requested.takeError());
  AnalysisOptions AOpt = std::move(*Requested);
  // Kept apart: the options move into the plan below.
  const std::string Tidy = AOpt.Tidy.ClangTidy, Plugin = AOpt.Tidy.Plugin;

  if (Opt.ListChecks) {
    auto Checks = registeredChecks(Tidy, Plugin);
    if (!Checks)
      return fail(Checks.takeError());
    std::string Docs = findDocsDir();
    size_t Width = 0;
    for (const auto &C : *Checks)
      Width = std::max(Width, C.size());
    for (const auto &C : *Checks) {
      CheckInfo Info = checkInfo(C, Docs);
      llvm::StringRef Summary = Info.Summary;
      // First sentence only.
      size_t Dot = Summary.find(". ");
      if (Dot != llvm::StringRef::npos)
        Summary = Summary.take_front(Dot + 1);
      llvm::outs() << llvm::left_justify(C, unsigned(Width)) << "  " << Summary << "\n";
    }
    return ExitClean;
  }

  // Everything that can fail for the environment fails before the analysis.
  if (auto Why = checkWritable("output", Opt.Output))
    return fail(*Why);
  if (auto Why = checkWritable("write-baseline", Opt.WriteBaseline))
    return fail(*Why);
  llvm::StringSet<> Accepted;
  if (!Opt.Baseline.empty()) {
    auto B = readBaseline(Opt.Baseline);
    if (!B)
      return fail(B.takeError());
    Accepted = std::move(*B);
  }

  auto Analysis = analyseProject(std::move(AOpt), Opt.CrossTU);
  if (!Analysis)
    return fail(Analysis.takeError());
  AnalysisPlan &APlan = (*Analysis)->Plan;
  AnalysisRun &Run = (*Analysis)->Run;
  FindingsModel &Model = (*Analysis)->Model;
  if ((*Analysis)->CrossUnits && !Opt.Quiet)
    printCrossUnits(*(*Analysis)->CrossUnits, llvm::errs());
  std::string BaselineRoot = Cwd;
  if (!Opt.Baseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.Baseline)).str();
  else if (!Opt.WriteBaseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.WriteBaseline)).str();
  filterByBaseline(Model, Opt.Baseline.empty() ? nullptr : &Accepted, BaselineRoot);
  std::vector<Finding> &Findings = Model.Findings;
  SourceCache &Sources = *Model.Sources;

  // The baseline: every finding of today.
  if (!Opt.WriteBaseline.empty())
    if (auto E = writeFileAtomically(makeAbsolute(Opt.WriteBaseline), baselineText(Findings, BaselineRoot)))
      return fail(std::move(E));
  size_t Found = Findings.size();

  // Fixes, once for all translation units; the report shows what is left.
  std::optional<FixPlan> Plan;
  unsigned FilesFixed = 0;
  if (Opt.Fix) {
    Plan = planFixes(Findings);
    auto Changed = applyFixPlan(*Plan);
    if (!Changed)
      return fail(Changed.takeError());
    FilesFixed = *Changed;
    std::set<const Finding *> Fixed(Plan->Fixed.begin(), Plan->Fixed.end());
    std::vector<Finding> Left;
    for (const Finding &F : Findings)
      if (!Fixed.count(&F))
        Left.push_back(F);
    Model.Fixed = Plan->Fixed.size();
    size_t Conflicting = Plan->Conflicting.size();
    Plan.reset(); // its pointers are into the findings replaced here
    Findings = std::move(Left);
    if (!Opt.Quiet)
      llvm::errs() << "libtorch-tidy: applied the fix-its of " << countOf(Model.Fixed, "finding")
                   << " to " << countOf(FilesFixed, "file")
                   << (Conflicting ? "; " + countOf(Conflicting, "conflicting fix-it") + " left out" : "")
                   << "\n";
  }

  // The report.
  ReportContext Ctx;
  Ctx.Root = Cwd;
  Ctx.Sources = &Sources;
  Ctx.Shard = APlan.ShardReport;
  Ctx.Notices = analysisNotices(Model);
  if (*Format == ReportFormat::Sarif) {
    std::string Docs = findDocsDir();
    if (auto Checks = registeredChecks(Tidy, Plugin))
      for (const std::string &C : *Checks)
        Ctx.Checks.push_back(checkInfo(C, Docs));
    else
      llvm::consumeError(Checks.takeError());
  }
  std::string Report;
  {
    llvm::raw_string_ostream OS(Report);
    writeReport(*Format, Findings, Ctx, OS);
  }
  if (Opt.Output.empty() || Opt.Output == "-") {
    llvm::outs() << Report;
    llvm::outs().flush();
  } else if (auto E = writeFileAtomically(makeAbsolute(Opt.Output), Report)) {
    return fail(std::move(E));
  }

  // The summary; the units that could not be analysed, each named.
  printFailures(Model, llvm::errs());
  if (!Opt.Quiet) {
    auto &OS = llvm::errs();
    printSummary(APlan, Run, Model, OS);
    if (!Opt.Baseline.empty())
      OS << "libtorch-tidy: " << countOf(Model.InBaseline, "finding") << " in the baseline not reported\n";
    if (!Opt.WriteBaseline.empty())
      OS << "libtorch-tidy: wrote " << countOf(Found, "finding") << " to " << Opt.WriteBaseline << "\n";
  }

  // The rule merge and review exit by too (analysisExit). Findings written
  // into a new baseline are recorded, not reported; with --fix, the findings
  // are what remains to do by hand.
  const std::vector<UnitFailure> &Failures = Model.Failures;
  bool Reported = !Findings.empty() && Opt.WriteBaseline.empty();
  if (!Failures.empty()) {
    std::string Line = countOf(Failures.size(), "translation unit") + " could not be analysed (" +
                       (Failures.size() == 1 ? Failures.front().File : std::string("listed above")) + ")";
    (void)fail(Reported ? Line + "; " + countOf(Findings.size(), "finding") + " reported in the others"
                        : Line);
  } else if (!Model.Crashes.empty()) {
    (void)fail(crashedChecksLine(Model));
  }
  return analysisExit(!Failures.empty(), !Model.Crashes.empty(), Reported);
}

} // namespace libtorch_tidy
