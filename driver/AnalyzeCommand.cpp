//===--- AnalyzeCommand.cpp - The analysis of a whole project -------------===//
//
// compile database -> translation units under PATHs -> (--diff) those touching
// changed files -> LibTorch prefilter -> clang-tidy with the plugin, in
// parallel -> findings (deduplicated, located, filtered by the diff and the
// baseline) -> report, fixes, baseline, summary, exit code.
//
//===----------------------------------------------------------------------===//
#include "AnalyzeCommand.h"
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

/// What the findings of a translation unit depend on besides its command and
/// files: clang-tidy, the plugin, the driver's scope module.
std::string toolIdentity(const std::string &Tidy, const std::string &Plugin,
                         const std::string &Scope, FileHasher &Hasher) {
  ProcessResult V = runProcess(Tidy, {Tidy, "--version"}, 60);
  return hashParts({"libtorch-tidy-results-v1", toolVersion(), Tidy, V.Output, Hasher.hash(Tidy),
                    Hasher.hash(Plugin), Scope.empty() ? "" : Hasher.hash(Scope)});
}

/// The compile command without what does not change the analysis: the
/// compiler's -c, the output and dependency-file options and the main file
/// (keyed apart).
static std::vector<std::string> analysisArguments(const CompileCommand &C) {
  std::vector<std::string> Out;
  const std::vector<std::string> &A = C.Arguments;
  for (size_t I = 0; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    if (I == 0) { // the compiler
      Out.push_back(Arg.str());
      continue;
    }
    if (Arg == "-c" || llvm::is_contained({"-MD", "-MMD", "-MP", "-MG", "-M", "-MM"}, Arg))
      continue;
    if (Arg == "-o" || Arg == "-MF" || Arg == "-MT" || Arg == "-MQ") {
      ++I;
      continue;
    }
    if (Arg.starts_with("-o") || Arg.starts_with("-MF") || Arg.starts_with("-MT") || Arg.starts_with("-MQ"))
      continue;
    Out.push_back(Arg.str());
  }
  return Out;
}

/// Whether an argument names a path relative to the command's directory: a
/// relative input, or a relative directory or file of a path-taking option
/// (or, erring on the safe side, any other option's separate value).
static bool hasRelativePath(llvm::StringRef Arg) {
  for (llvm::StringRef Flag : {"-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros",
                               "-isysroot", "--sysroot=", "-F", "-L", "-fprofile-use=", "-Xclang"})
    if (Arg.consume_front(Flag))
      break;
  Arg.consume_front("=");
  if (Arg.empty() || Arg.starts_with("-"))
    return false;
  return !llvm::sys::path::is_absolute(Arg);
}

/// The key of a translation unit's results before its headers are known
/// (ResultCache.h): tools, options, configuration files, command, main file.
std::string commandKey(const std::string &ToolId, const TidyOptions &T, const CompileCommand &C,
                       FileHasher &Hasher) {
  std::vector<std::string> Parts = {ToolId, checksFor(T, C.File), T.HeaderFilter, T.ConfigFile,
                                    T.ConfigFile.empty() ? "" : Hasher.hash(T.ConfigFile)};
  for (const std::string &A : T.ExtraArgs)
    Parts.push_back("extra:" + A);
  // Every .clang-tidy clang-tidy may read for this file.
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(C.File); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, ".clang-tidy");
    std::string H = Hasher.hash(P);
    if (!H.empty())
      Parts.push_back(std::string(P) + "=" + H);
    if (Dir == llvm::sys::path::root_path(Dir))
      break;
  }
  // The output and dependency files change nothing clang-tidy reports, and the
  // directory matters only through relative paths: without them, build
  // directories and sub-projects that compile the same file with the same
  // flags share one entry (with a shared --cache-dir).
  std::vector<std::string> Args = analysisArguments(C);
  if (llvm::any_of(llvm::drop_begin(Args), [](const std::string &A) { return hasRelativePath(A); }))
    Parts.push_back(C.Directory);
  Parts.push_back(C.File);
  Parts.push_back(Hasher.hash(C.File));
  Parts.push_back("args");
  Parts.insert(Parts.end(), Args.begin(), Args.end());
  return hashParts(Parts);
}

/// A run with a precompiled header that clang rejected or that broke the
/// parse: the plain parse decides.
bool pchRunFailed(const TidyResult &R) {
  if (R.Failed)
    return true;
  for (const Finding &F : R.Findings)
    if (F.isCompilerError())
      return true;
  return false;
}

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

/// Symlink-free path for comparisons (git reports real paths).
std::string canonical(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return std::string(Real);
  return makeAbsolute(Path);
}

bool isUnder(llvm::StringRef File, llvm::StringRef Dir) {
  if (File == Dir)
    return true;
  return File.starts_with(Dir) && (Dir.ends_with("/") || File.drop_front(Dir.size()).starts_with("/"));
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

/// The progress line on a terminal: [done/total] elapsed, current file.
class Progress {
public:
  Progress(bool Enabled, size_t Total, std::string Root)
      : Enabled(Enabled), Total(Total), Root(std::move(Root)), Start(std::chrono::steady_clock::now()) {}
  void started(const std::string &File) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Current = File;
    drawLocked();
  }
  void finished() {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Done;
    drawLocked();
  }
  void tick() {
    std::lock_guard<std::mutex> Lock(Mutex);
    drawLocked();
  }
  void clear() {
    if (!Enabled)
      return;
    std::lock_guard<std::mutex> Lock(Mutex);
    llvm::errs() << "\r\x1b[K";
    llvm::errs().flush();
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }

private:
  void drawLocked() {
    if (!Enabled)
      return;
    unsigned Seconds = unsigned(elapsed());
    llvm::errs() << "\r\x1b[K"
                 << llvm::format("[%zu/%zu] %u:%02u ", Done, Total, Seconds / 60, Seconds % 60)
                 << displayPath(Current, Root);
    llvm::errs().flush();
  }
  bool Enabled;
  size_t Total;
  std::string Root;
  std::chrono::steady_clock::time_point Start;
  std::mutex Mutex;
  size_t Done = 0;
  std::string Current;
};

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
  auto DbPath = findCompileDatabase(Opt.BuildDir);
  if (!DbPath)
    return fail(DbPath.takeError());
  auto Db = loadCompileDatabase(*DbPath);
  if (!Db)
    return fail(Db.takeError());
  std::vector<std::string> Filters;
  for (const std::string &P : Opt.Paths) {
    if (!llvm::sys::fs::exists(P))
      return fail(P + ": no such file or directory");
    Filters.push_back(makeAbsolute(P));
  }
  std::optional<ChangedLines> Changed;
  if (Opt.Diff.getNumOccurrences()) {
    auto C = changedLinesSince(Opt.Diff);
    if (!C)
      return fail(C.takeError());
    Changed = std::move(*C);
  }

  std::optional<ShardSpec> Shard;
  if (!Opt.Shard.empty()) {
    auto S = parseShard(Opt.Shard, "--shard");
    if (!S)
      return fail(S.takeError());
    Shard = *S;
  } else {
    auto S = shardFromEnvironment();
    if (!S)
      return fail(S.takeError());
    Shard = *S;
  }
  auto CacheCap = parseSize(Opt.CacheSize);
  if (!CacheCap)
    return fail("--cache-size " + Opt.CacheSize + ": not a size (e.g. 500M, 2G)");
  std::string CacheDir = Opt.CacheDir;
  if (CacheDir.empty())
    if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CACHE_DIR"))
      CacheDir = *Env;
  if (CacheDir.empty()) {
    llvm::SmallString<256> P(Db->Directory);
    llvm::sys::path::append(P, ".libtorch-tidy-cache");
    CacheDir = std::string(P);
  }
  CacheDir = makeAbsolute(CacheDir);
  bool UseCache = !Opt.NoCache;
  bool UsePch = !Opt.NoPch;
  if ((UseCache || UsePch) && !llvm::sys::fs::is_directory(CacheDir)) {
    if (auto EC = llvm::sys::fs::create_directories(CacheDir))
      return fail("--cache-dir " + CacheDir + ": " + EC.message());
  }
  if ((UseCache || UsePch) && llvm::sys::fs::access(CacheDir, llvm::sys::fs::AccessMode::Write))
    return fail("--cache-dir " + CacheDir + ": not writable");

  // Translation units under the PATHs.
  std::vector<const CompileCommand *> Selected;
  for (const CompileCommand &C : Db->Commands) {
    bool Keep = Filters.empty();
    for (const std::string &F : Filters)
      Keep |= isUnder(C.File, F) || isUnder(canonical(C.File), canonical(F));
    if (Keep)
      Selected.push_back(&C);
  }
  if (Selected.empty() && !Filters.empty())
    return fail("no translation unit of " + Db->Path + " is under " + llvm::join(Opt.Paths, ", "));
  for (const CompileCommand *C : Selected)
    if (!llvm::sys::fs::exists(C->File))
      return fail(C->File + ": no such file (listed in " + Db->Path + ")");

  // The prefilter, and the diff's selection.
  IncludeScanner Scanner;
  std::vector<const CompileCommand *> ToAnalyse;
  size_t SkippedNoTorch = 0, SkippedNoChange = 0;
  for (const CompileCommand *C : Selected) {
    IncludeScan Scan = Scanner.scan(*C);
    if (Changed) {
      bool Touched = false;
      for (const std::string &F : Scan.ProjectFiles)
        Touched |= Changed->Files.count(canonical(F)) > 0;
      if (!Touched) {
        ++SkippedNoChange;
        continue;
      }
    }
    if (!Opt.All && !Scan.UsesLibTorch) {
      ++SkippedNoTorch;
      continue;
    }
    ToAnalyse.push_back(C);
  }

  // clang-tidy on each, in parallel.
  TidyOptions Tidy_;
  Tidy_.ClangTidy = *Tidy;
  Tidy_.Plugin = *Plugin;
  Tidy_.BuildDir = Db->Directory;
  Tidy_.Checks = Opt.Checks;
  Tidy_.HeaderFilter = Opt.HeaderFilter;
  Tidy_.ConfigFile = Opt.ConfigFile;
  Tidy_.ExtraArgs.assign(Opt.ExtraArgs.begin(), Opt.ExtraArgs.end());

  // The fast path's pieces: the scope module beside the plugin, clang beside
  // clang-tidy, the cache.
  std::string ScopeModule, Clang;
  if (UsePch) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(*Plugin));
    llvm::sys::path::append(P, "LibTorchTidyScope.so");
    if (llvm::sys::fs::exists(P))
      ScopeModule = std::string(P);
    Clang = clangBesideTidy(*Tidy);
  }
  FileHasher Hasher;
  ResultCache Cache(CacheDir, *CacheCap, Hasher);
  std::vector<std::string> Keys(ToAnalyse.size());
  std::string ToolId;
  if (UseCache || Shard) {
    ToolId = toolIdentity(*Tidy, *Plugin, ScopeModule, Hasher);
    for (size_t I = 0; I < ToAnalyse.size(); ++I)
      Keys[I] = commandKey(ToolId, Tidy_, *ToAnalyse[I], Hasher);
  }

  // This shard's part.
  std::optional<ShardInfo> ShardReport;
  size_t OtherShards = 0;
  if (Shard) {
    std::vector<std::string> Names;
    std::vector<double> Costs;
    for (size_t I = 0; I < ToAnalyse.size(); ++I) {
      Names.push_back(displayPath(ToAnalyse[I]->File, Cwd));
      std::optional<double> Known = UseCache ? Cache.recordedSeconds(Keys[I]) : std::nullopt;
      Costs.push_back(Known ? *Known : Scanner.scan(*ToAnalyse[I]).UsesLibTorch ? 10.0 : 2.0);
    }
    std::vector<size_t> Mine = shardUnits(Names, Costs, *Shard);
    ShardReport = ShardInfo{Shard->Index, Shard->Total, {}};
    std::vector<const CompileCommand *> Kept;
    std::vector<std::string> KeptKeys;
    for (size_t I : Mine) {
      Kept.push_back(ToAnalyse[I]);
      KeptKeys.push_back(Keys[I]);
      ShardReport->Units.push_back(Names[I]);
    }
    OtherShards = ToAnalyse.size() - Kept.size();
    ToAnalyse = std::move(Kept);
    Keys = std::move(KeptKeys);
  }

  // Cached results first; the PCH plans of the others.
  std::vector<TidyResult> Results(ToAnalyse.size());
  std::vector<bool> Hit(ToAnalyse.size(), false);
  size_t Hits = 0;
  if (UseCache)
    for (size_t I = 0; I < ToAnalyse.size(); ++I)
      if (auto E = Cache.lookup(Keys[I])) {
        auto Parsed = E->ExportedFixes.empty() ? llvm::Expected<std::vector<Finding>>(std::vector<Finding>())
                                               : parseExportedFixes(E->ExportedFixes);
        if (!Parsed) {
          llvm::consumeError(Parsed.takeError());
          continue;
        }
        Results[I].Findings = std::move(*Parsed);
        Results[I].Seconds = E->Seconds;
        Hit[I] = true;
        ++Hits;
      }
  PchStore Pchs(CacheDir, Clang);
  std::vector<PchPlan> Plans(ToAnalyse.size());
  if (UsePch && !Clang.empty()) {
    std::string ClangId = Clang + "\n" + runProcess(Clang, {Clang, "--version"}, 60).Output;
    llvm::StringMap<unsigned> Users;
    for (size_t I = 0; I < ToAnalyse.size(); ++I)
      if (!Hit[I]) {
        Plans[I] = planPch(*ToAnalyse[I], Tidy_.ExtraArgs, ClangId);
        if (Plans[I].Usable)
          ++Users[Plans[I].Key];
      }
    // A PCH pays for itself from the second translation unit that uses it.
    for (PchPlan &P : Plans)
      if (P.Usable && Users[P.Key] < 2 && !Pchs.exists(P))
        P.Usable = false;
  }

  std::atomic<size_t> PchRuns{0}, PchFallbacks{0};
  bool ShowProgress = !Opt.Quiet && llvm::sys::Process::StandardErrIsDisplayed();
  Progress Bar(ShowProgress, ToAnalyse.size(), Cwd);
  {
    unsigned Threads = Opt.Jobs ? unsigned(Opt.Jobs) : llvm::heavyweight_hardware_concurrency().compute_thread_count();
    Threads = std::max(1u, std::min<unsigned>(Threads, std::max<size_t>(1, ToAnalyse.size())));
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Threads));
    std::mutex DoneMutex;
    std::condition_variable DoneCv;
    size_t Done = 0;
    for (size_t I = 0; I < ToAnalyse.size(); ++I)
      Pool.async([&, I] {
        Bar.started(ToAnalyse[I]->File);
        if (!Hit[I]) {
          TidyRunExtras Extras;
          Extras.ScopeModule = ScopeModule;
          Extras.ListIncludes = UseCache;
          std::vector<std::string> PchFiles;
          if (Plans[I].Usable) {
            PchStore::Built B = Pchs.get(Plans[I]);
            if (B.Ok) {
              Extras.Pch = B.Pch;
              PchFiles = std::move(B.Files);
            }
          }
          TidyResult R = runClangTidy(Tidy_, ToAnalyse[I]->File, Extras);
          if (!Extras.Pch.empty()) {
            ++PchRuns;
            if (pchRunFailed(R)) {
              // Whatever went wrong, the plain parse decides.
              if (llvm::StringRef(R.Error).contains("precompiled") ||
                  llvm::any_of(R.Findings, [](const Finding &F) {
                    return llvm::StringRef(F.Message).contains("precompiled header") ||
                           llvm::StringRef(F.Message).contains(".pch");
                  }))
                Pchs.discard(Plans[I]);
              ++PchFallbacks;
              Extras.Pch.clear();
              PchFiles.clear();
              R = runClangTidy(Tidy_, ToAnalyse[I]->File, Extras);
            }
          }
          if (UseCache && !R.Failed) {
            std::vector<std::string> Files = {ToAnalyse[I]->File};
            Files.insert(Files.end(), R.Includes.begin(), R.Includes.end());
            Files.insert(Files.end(), PchFiles.begin(), PchFiles.end());
            Cache.store(Keys[I], {R.ExportedFixes, R.Seconds}, Files);
          }
          Results[I] = std::move(R);
        }
        Bar.finished();
        std::lock_guard<std::mutex> Lock(DoneMutex);
        ++Done;
        DoneCv.notify_all();
      });
    std::unique_lock<std::mutex> Lock(DoneMutex);
    while (Done < ToAnalyse.size()) {
      DoneCv.wait_for(Lock, std::chrono::seconds(1));
      Lock.unlock();
      Bar.tick();
      Lock.lock();
    }
    Lock.unlock();
    Pool.wait();
  }
  Bar.clear();
  if (UseCache || UsePch) {
    llvm::StringMap<bool> Keep;
    Pchs.usedFiles(Keep);
    Cache.trim(Keep);
  }

  // Findings: located, deduplicated, filtered.
  SourceCache Sources;
  std::vector<Finding> Findings;
  std::vector<std::string> Failures;
  for (size_t I = 0; I < ToAnalyse.size(); ++I) {
    TidyResult &R = Results[I];
    if (R.Failed)
      Failures.push_back(displayPath(ToAnalyse[I]->File, Cwd) + ": " + R.Error);
    for (Finding &F : R.Findings) {
      Sources.locate(F.Loc);
      for (Note &N : F.Notes)
        Sources.locate(N.Loc);
      Findings.push_back(std::move(F));
    }
  }
  sortAndDedupe(Findings);
  size_t OutsideDiff = 0;
  if (Changed) {
    std::vector<Finding> Kept;
    for (Finding &F : Findings) {
      if (Changed->contains(canonical(F.Loc.File), F.Loc.Line) || F.isCompilerError())
        Kept.push_back(std::move(F));
      else
        ++OutsideDiff;
    }
    Findings = std::move(Kept);
  }
  std::string BaselineRoot = Cwd;
  if (!Opt.Baseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.Baseline)).str();
  else if (!Opt.WriteBaseline.empty())
    BaselineRoot = llvm::sys::path::parent_path(makeAbsolute(Opt.WriteBaseline)).str();
  computeFingerprints(Findings, Sources, BaselineRoot);
  size_t InBaseline = 0;
  if (!Opt.Baseline.empty()) {
    std::vector<Finding> Kept;
    for (Finding &F : Findings) {
      if (Accepted.contains(F.Fingerprint))
        ++InBaseline;
      else
        Kept.push_back(std::move(F));
    }
    Findings = std::move(Kept);
  }

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
  Ctx.Shard = ShardReport;
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
    std::map<std::string, unsigned> PerCheck;
    llvm::StringSet<> FilesWithFindings;
    for (const Finding &F : Findings) {
      ++PerCheck[F.Check];
      FilesWithFindings.insert(F.Loc.File);
    }
    auto &OS = llvm::errs();
    OS << "libtorch-tidy: " << Findings.size() << (Findings.size() == 1 ? " finding" : " findings");
    if (!Findings.empty()) {
      OS << " in " << FilesWithFindings.size() << (FilesWithFindings.size() == 1 ? " file" : " files")
         << " (";
      bool First = true;
      for (const auto &[Check, Count] : PerCheck) {
        OS << (First ? "" : ", ") << Check << ": " << Count;
        First = false;
      }
      OS << ")";
    }
    OS << "; " << ToAnalyse.size() << " of " << Selected.size() << " translation units analysed";
    if (SkippedNoTorch)
      OS << ", " << SkippedNoTorch << " skipped (no LibTorch include)";
    if (Changed)
      OS << ", " << SkippedNoChange << " untouched by the diff against " << Changed->Revision;
    if (Shard)
      OS << ", " << OtherShards << " left to the other shards (shard " << Shard->Index << "/"
         << Shard->Total << ")";
    OS << llvm::formatv("; {0:f1} s", Bar.elapsed());
    if (Hits || PchRuns)
      OS << " (" << Hits << " from the cache, " << (PchRuns - PchFallbacks)
         << " with the precompiled LibTorch header"
         << (PchFallbacks ? ", " + std::to_string(PchFallbacks) + " parsed again without it" : "")
         << ")";
    OS << "\n";
    if (OutsideDiff)
      OS << "libtorch-tidy: " << OutsideDiff << " findings on unchanged lines not reported\n";
    if (!Opt.Baseline.empty())
      OS << "libtorch-tidy: " << InBaseline << " findings in the baseline not reported\n";
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

  if (!Failures.empty())
    return fail(llvm::Twine(Failures.size()) +
                (Failures.size() == 1 ? " translation unit was" : " translation units were") +
                " not analysed: " + Failures.front() + (Failures.size() > 1 ? "; ..." : ""));
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
