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
#include <atomic>
#include <mutex>
#include <chrono>
#include <condition_variable>
#include <map>

namespace libtorch_tidy {
namespace cl = llvm::cl;

namespace {

cl::OptionCategory Category("libtorch-tidy options");

const char Overview[] =
    "libtorch-tidy: the torch- clang-tidy checks over a whole project\n\n"
    "Reads compile_commands.json, skips the translation units that cannot involve LibTorch,\n"
    "runs clang-tidy with the LibTorchTidy plugin on the others in parallel and reports the\n"
    "findings. PATHs (files or directories) restrict the analysis to the translation units\n"
    "under them. Exit status: 0 no findings, 1 findings, 2 usage or environment error.\n";

struct Options {
  cl::opt<std::string> BuildDir{"p", cl::desc("Build directory holding compile_commands.json "
                                              "(default: ., ./build or a parent directory)"),
                                cl::value_desc("dir"), cl::cat(Category)};
  cl::list<std::string> Paths{cl::Positional, cl::desc("[PATH...]"), cl::cat(Category)};
  cl::opt<unsigned> Jobs{"j", cl::desc("Parallel clang-tidy processes (default: all cores)"),
                         cl::value_desc("N"), cl::init(0), cl::Prefix, cl::cat(Category)};
  cl::opt<bool> All{"all", cl::desc("Analyse every translation unit, also those that include no "
                                    "LibTorch header"),
                    cl::cat(Category)};
  cl::opt<std::string> Checks{"checks",
                              cl::desc("Checks for clang-tidy (default: the .clang-tidy's, else "
                                       "'-*,torch-*')"),
                              cl::value_desc("globs"), cl::cat(Category)};
  cl::opt<std::string> HeaderFilter{"header-filter",
                                    cl::desc("Report findings in headers matching this regex "
                                             "(default: the .clang-tidy's HeaderFilterRegex)"),
                                    cl::value_desc("regex"), cl::cat(Category)};
  cl::opt<std::string> ConfigFile{"config-file", cl::desc("A .clang-tidy file to use instead of the "
                                                          "project's"),
                                  cl::value_desc("file"), cl::cat(Category)};
  cl::list<std::string> ExtraArgs{"extra-arg", cl::desc("Extra compiler argument (repeatable)"),
                                  cl::value_desc("arg"), cl::cat(Category)};
  cl::opt<std::string> Diff{"diff", cl::ValueOptional,
                            cl::desc("Report findings only on lines changed since REV (default: "
                                     "the merge base with the upstream branch, or HEAD)"),
                            cl::value_desc("REV"), cl::cat(Category)};
  cl::opt<bool> Fix{"fix", cl::desc("Apply the fix-its (each once, files rewritten atomically)"),
                    cl::cat(Category)};
  cl::opt<std::string> Format{"format", cl::desc("Report format: text, json, sarif, github, gitlab"),
                              cl::value_desc("format"), cl::init("text"), cl::cat(Category)};
  cl::opt<std::string> Output{"output", cl::desc("Write the report to FILE instead of stdout"),
                              cl::value_desc("file"), cl::cat(Category)};
  cl::alias OutputShort{"o", cl::desc("Alias for --output"), cl::aliasopt(Output)};
  cl::opt<std::string> Baseline{"baseline", cl::desc("Report only findings not in this baseline"),
                                cl::value_desc("file"), cl::cat(Category)};
  cl::opt<std::string> WriteBaseline{"write-baseline",
                                     cl::desc("Write today's findings as a baseline and exit 0"),
                                     cl::value_desc("file"), cl::cat(Category)};
  cl::opt<bool> ListChecks{"list-checks", cl::desc("List the torch- checks and exit"),
                           cl::cat(Category)};
  cl::opt<std::string> Explain{"explain", cl::desc("Print a check's documentation and exit"),
                               cl::value_desc("check"), cl::cat(Category)};
  cl::opt<std::string> ClangTidy{"clang-tidy",
                                 cl::desc("clang-tidy to run (default: $LIBTORCH_TIDY_CLANG_TIDY, "
                                          "else the one of the plugin's LLVM version)"),
                                 cl::value_desc("path"), cl::cat(Category)};
  cl::opt<std::string> Plugin{"plugin",
                              cl::desc("LibTorchTidy.so to load (default: $LIBTORCH_TIDY_PLUGIN, "
                                       "else ../lib/LibTorchTidy.so beside the command)"),
                              cl::value_desc("path"), cl::cat(Category)};
  cl::opt<bool> Quiet{"quiet", cl::desc("No progress line and no summary"), cl::cat(Category)};
  cl::opt<bool> NoPch{"no-pch", cl::desc("Parse every translation unit in full (no precompiled "
                                         "LibTorch header)"),
                      cl::cat(Category)};
  cl::opt<bool> NoCache{"no-cache", cl::desc("Neither read nor write the results cache"),
                        cl::cat(Category)};
  cl::opt<std::string> CacheDir{"cache-dir",
                                cl::desc("Cache of results and precompiled headers (default: "
                                         "BUILD/.libtorch-tidy-cache, or $LIBTORCH_TIDY_CACHE_DIR)"),
                                cl::value_desc("dir"), cl::cat(Category)};
  cl::opt<std::string> CacheSize{"cache-size",
                                 cl::desc("Size cap of the cache directory, e.g. 500M, 4G "
                                          "(default: 2G)"),
                                 cl::value_desc("size"), cl::init("2G"), cl::cat(Category)};
  cl::opt<std::string> Shard{"shard",
                             cl::desc("Analyse only part I of N (1-based; default: "
                                      "$CI_NODE_INDEX/$CI_NODE_TOTAL when set)"),
                             cl::value_desc("I/N"), cl::cat(Category)};
};

int fail(const llvm::Twine &Message) {
  llvm::errs() << "libtorch-tidy: error: " << Message << '\n';
  return ExitError;
}
int fail(llvm::Error E) { return fail(llvm::toString(std::move(E))); }

std::string currentDir() {
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  return std::string(Cwd);
}

std::string makeAbsolute(llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, true);
  return std::string(P);
}

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

/// `--diff REV` (with a space) is accepted when REV names a commit and no file.
std::vector<std::string> normalizeDiffArgument(int Argc, const char **Argv) {
  std::vector<std::string> Args(Argv, Argv + Argc);
  for (size_t I = 1; I + 1 < Args.size(); ++I) {
    if (Args[I] != "--diff" && Args[I] != "-diff")
      continue;
    const std::string &Next = Args[I + 1];
    if (!Next.empty() && Next[0] != '-' && !llvm::sys::fs::exists(Next) && isGitRevision(Next)) {
      Args[I] = "--diff=" + Next;
      Args.erase(Args.begin() + I + 1);
    }
  }
  return Args;
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

int runAnalyzeCommand(int Argc, const char **Argv) {
  Options Opt;
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "libtorch-tidy " << toolVersion() << " (for clang-tidy " << pluginLLVMMajor() << ")\n";
  });
  std::vector<std::string> Args = normalizeDiffArgument(Argc, Argv);
  std::vector<const char *> CArgs;
  for (const auto &A : Args)
    CArgs.push_back(A.c_str());
  std::string ParseErrors;
  llvm::raw_string_ostream ParseErrorStream(ParseErrors);
  if (!compat::parseCommandLineWithDoubleDash(int(CArgs.size()), CArgs.data(), Overview,
                                              &ParseErrorStream)) {
    ParseErrorStream.flush();
    // "<prog>: Unknown command line argument '-x'.  Try: '<prog> --help'" -> one plain line.
    llvm::StringRef First = llvm::StringRef(ParseErrors).split('\n').first.trim();
    if (size_t Colon = First.find(": "); Colon != llvm::StringRef::npos)
      First = First.drop_front(Colon + 2);
    First = First.split("  Try:").first.trim().rtrim('.');
    std::string Line = First.str();
    if (!Line.empty())
      Line[0] = llvm::toLower(Line[0]);
    return fail(Line + " (see --help)");
  }
  auto Format = parseReportFormat(Opt.Format);
  if (!Format)
    return fail("--format " + Opt.Format + ": not one of text, json, sarif, github, gitlab");
  const std::string Cwd = currentDir();

  // --explain needs only the docs.
  if (!Opt.Explain.empty()) {
    std::string Docs = findDocsDir();
    if (Docs.empty())
      return fail("the check docs are not installed beside " + selfPath());
    llvm::SmallString<256> Page(Docs);
    llvm::sys::path::append(Page, "checks", Opt.Explain + ".md");
    auto Buf = llvm::MemoryBuffer::getFile(Page);
    if (!Buf || !llvm::StringRef(Opt.Explain).starts_with("torch-"))
      return fail("no check named '" + Opt.Explain + "' (see --list-checks)");
    llvm::outs() << (*Buf)->getBuffer();
    return ExitClean;
  }

  auto Plugin = findPlugin(Opt.Plugin);
  if (!Plugin)
    return fail(Plugin.takeError());
  auto Tidy = findClangTidy(Opt.ClangTidy);
  if (!Tidy)
    return fail(Tidy.takeError());

  if (Opt.ListChecks) {
    auto Checks = registeredChecks(*Tidy, *Plugin);
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

  AnalysisOptions AOpt;
  AOpt.Cwd = Cwd;
  AOpt.BuildDir = Opt.BuildDir;
  AOpt.Paths.assign(Opt.Paths.begin(), Opt.Paths.end());
  AOpt.Jobs = Opt.Jobs;
  AOpt.All = Opt.All;
  AOpt.Tidy.ClangTidy = *Tidy;
  AOpt.Tidy.Plugin = *Plugin;
  AOpt.Tidy.Checks = Opt.Checks;
  AOpt.Tidy.HeaderFilter = Opt.HeaderFilter;
  AOpt.Tidy.ConfigFile = Opt.ConfigFile;
  AOpt.Tidy.ExtraArgs.assign(Opt.ExtraArgs.begin(), Opt.ExtraArgs.end());
  AOpt.UsePch = !Opt.NoPch;
  AOpt.UseCache = !Opt.NoCache;
  AOpt.CacheDir = Opt.CacheDir;
  AOpt.CacheSize = Opt.CacheSize;
  AOpt.Shard = Opt.Shard;
  if (Opt.Diff.getNumOccurrences())
    AOpt.Diff = Opt.Diff;
  AOpt.Progress = !Opt.Quiet && llvm::sys::Process::StandardErrIsDisplayed();
  auto Plan_ = planAnalysis(std::move(AOpt));
  if (!Plan_)
    return fail(Plan_.takeError());
  AnalysisPlan &APlan = *Plan_;
  AnalysisRun Run = runAnalysis(APlan);
  FindingsModel Model = collectFindings(APlan, Run);
  filterByDiff(APlan, Model);
  std::string BaselineRoot = Cwd;
  if (!Opt.Baseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.Baseline)).str();
  else if (!Opt.WriteBaseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.WriteBaseline)).str();
  filterByBaseline(Model, Opt.Baseline.empty() ? nullptr : &Accepted, BaselineRoot);
  std::vector<Finding> &Findings = Model.Findings;
  SourceCache &Sources = *Model.Sources;

  // Fixes, once for all translation units.
  std::optional<FixPlan> Plan;
  unsigned FilesFixed = 0;
  if (Opt.Fix) {
    Plan = planFixes(Findings);
    auto Changed = applyFixPlan(*Plan);
    if (!Changed)
      return fail(Changed.takeError());
    FilesFixed = *Changed;
  }

  // The report.
  ReportContext Ctx;
  Ctx.Root = Cwd;
  Ctx.Sources = &Sources;
  Ctx.Shard = APlan.ShardReport;
  if (*Format == ReportFormat::Sarif) {
    std::string Docs = findDocsDir();
    if (auto Checks = registeredChecks(*Tidy, *Plugin))
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
  if (!Opt.WriteBaseline.empty())
    if (auto E = writeFileAtomically(makeAbsolute(Opt.WriteBaseline), baselineText(Findings, BaselineRoot)))
      return fail(std::move(E));

  // The summary.
  if (!Opt.Quiet) {
    auto &OS = llvm::errs();
    printSummary(APlan, Run, Model, OS);
    if (!Opt.Baseline.empty())
      OS << "libtorch-tidy: " << Model.InBaseline << " findings in the baseline not reported\n";
    if (Plan)
      OS << "libtorch-tidy: applied the fix-its of " << Plan->Fixed.size() << " findings to "
         << FilesFixed << (FilesFixed == 1 ? " file" : " files")
         << (Plan->Conflicting.empty()
                 ? std::string()
                 : "; " + std::to_string(Plan->Conflicting.size()) + " conflicting fix-its left out")
         << "\n";
    if (!Opt.WriteBaseline.empty())
      OS << "libtorch-tidy: wrote " << Findings.size() << " findings to " << Opt.WriteBaseline << "\n";
  }

  const std::vector<UnitFailure> &Failures = Model.Failures;
  if (!Failures.empty())
    return fail(llvm::Twine(Failures.size()) +
                (Failures.size() == 1 ? " translation unit was" : " translation units were") +
                " not analysed: " + Failures.front().File + ": " + Failures.front().Reason +
                (Failures.size() > 1 ? "; ..." : ""));
  if (!Opt.WriteBaseline.empty())
    return ExitClean;
  if (Plan) {
    // Exit 1 only for what remains to do by hand.
    size_t Remaining = Findings.size() - Plan->Fixed.size();
    return Remaining ? ExitFindings : ExitClean;
  }
  return Findings.empty() ? ExitClean : ExitFindings;
}

} // namespace libtorch_tidy
