//===--- Analysis.cpp - The stages of an analysis -------------------------===//
#include "Analysis.h"
#include "AtomicWrite.h"
#include "Baseline.h"
#include "CrashIsolation.h"
#include "GitDiff.h"
#include "Pch.h"
#include "Prefilter.h"
#include "ResultCache.h"
#include "Toolchain.h"
#include "SummaryLocation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

namespace libtorch_tidy {

namespace {

llvm::Error error(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
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

/// What the findings of a translation unit depend on besides its command and
/// files: clang-tidy, the plugin, the driver's scope module.
std::string toolIdentity(const std::string &Tidy, const std::string &Plugin,
                         const std::string &Scope, FileHasher &Hasher) {
  ProcessResult V = runProcess(Tidy, {Tidy, "--version"}, 60);
  return hashParts({"libtorch-tidy-results-v1", toolVersion(), Tidy, V.Output, Hasher.hash(Tidy),
                    Hasher.hash(Plugin), Scope.empty() ? "" : Hasher.hash(Scope)});
}

/// The compile command without what does not change the analysis: the
/// compiler's -c and the output and dependency-file options.
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
  // The user's modules, by content: a rebuilt module may find other things.
  for (const std::string &M : T.Loads)
    Parts.push_back("load:" + M + "=" + Hasher.hash(M));
  if (T.WriteSummaries)
    Parts.push_back("writes-summaries");
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

/// Where crash reports go: the cache directory's crashes/ when there is
/// one, else the system's temporary directory.
std::string crashReportDir(const AnalysisPlan &P) {
  if (!llvm::sys::fs::is_directory(P.CacheDir))
    return "";
  llvm::SmallString<256> Dir(P.CacheDir);
  llvm::sys::path::append(Dir, "crashes");
  return std::string(Dir);
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

llvm::Expected<AnalysisPlan> planAnalysis(AnalysisOptions Opt) {
  AnalysisPlan P;
  // Every database named (one search when none is), read into one union.
  std::vector<std::string> Dirs = Opt.BuildDirs;
  if (Dirs.empty())
    Dirs.push_back("");
  llvm::StringSet<> Files;
  for (const std::string &Dir : Dirs) {
    auto DbPath = findCompileDatabase(Dir);
    if (!DbPath)
      return DbPath.takeError();
    auto Db = loadCompileDatabase(*DbPath);
    if (!Db)
      return Db.takeError();
    if (llvm::is_contained(P.Databases, Db->Path))
      continue;
    P.Databases.push_back(Db->Path);
    if (P.Databases.size() == 1) {
      P.Db = std::move(*Db);
      for (const CompileCommand &C : P.Db.Commands)
        Files.insert(C.File);
      continue;
    }
    for (CompileCommand &C : Db->Commands)
      if (Files.insert(C.File).second)
        P.Db.Commands.push_back(std::move(C));
  }
  const std::string DbNames = llvm::join(P.Databases, ", ");
  std::vector<std::string> Filters;
  for (const std::string &Path : Opt.Paths) {
    if (!llvm::sys::fs::exists(Path))
      return error(Path + ": no such file or directory");
    Filters.push_back(makeAbsolute(Path));
  }
  if (Opt.Diff) {
    auto C = changedLinesSince(*Opt.Diff);
    if (!C)
      return C.takeError();
    P.Changed = std::move(*C);
  }
  if (!Opt.Shard.empty()) {
    auto S = parseShard(Opt.Shard, "--shard");
    if (!S)
      return S.takeError();
    P.Shard = *S;
  } else {
    auto S = shardFromEnvironment();
    if (!S)
      return S.takeError();
    P.Shard = *S;
  }
  auto CacheCap = parseSize(Opt.CacheSize);
  if (!CacheCap)
    return error("--cache-size " + Opt.CacheSize + ": not a size (e.g. 500M, 2G)");
  P.CacheCap = *CacheCap;
  std::string CacheDir = Opt.CacheDir;
  if (CacheDir.empty())
    if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CACHE_DIR"))
      CacheDir = *Env;
  if (CacheDir.empty()) {
    llvm::SmallString<256> Dir(P.Db.Directory);
    llvm::sys::path::append(Dir, ".libtorch-tidy-cache");
    CacheDir = std::string(Dir);
  }
  P.CacheDir = makeAbsolute(CacheDir);
  if ((Opt.UseCache || Opt.UsePch) && !llvm::sys::fs::is_directory(P.CacheDir)) {
    if (auto EC = llvm::sys::fs::create_directories(P.CacheDir))
      return error("--cache-dir " + P.CacheDir + ": " + EC.message());
  }
  if ((Opt.UseCache || Opt.UsePch) && llvm::sys::fs::access(P.CacheDir, llvm::sys::fs::AccessMode::Write))
    return error("--cache-dir " + P.CacheDir + ": not writable");

  // Translation units under the PATHs.
  std::vector<const CompileCommand *> Selected;
  for (const CompileCommand &C : P.Db.Commands) {
    if (Opt.Skip.contains(C.File))
      continue;
    bool Keep = Filters.empty();
    for (const std::string &F : Filters)
      Keep |= isUnder(C.File, F) || isUnder(canonical(C.File), canonical(F));
    if (Keep)
      Selected.push_back(&C);
  }
  if (Selected.empty() && !Filters.empty())
    return error("no translation unit of " + DbNames + " is under " + llvm::join(Opt.Paths, ", "));
  for (const CompileCommand *C : Selected)
    if (!llvm::sys::fs::exists(C->File))
      return error(C->File + ": no such file (listed in " + C->Database + "/compile_commands.json)");
  P.Selected = Selected.size();

  // The prefilter, and the diff's selection.
  IncludeScanner Scanner;
  for (const CompileCommand *C : Selected) {
    IncludeScan Scan = Scanner.scan(*C);
    P.Reached.insert(canonical(C->File));
    for (const std::string &F : Scan.ProjectFiles)
      P.Reached.insert(canonical(F));
    if (P.Changed) {
      bool Touched = false;
      for (const std::string &F : Scan.ProjectFiles)
        Touched |= P.Changed->Files.count(canonical(F)) > 0;
      if (!Touched) {
        ++P.SkippedNoChange;
        continue;
      }
    }
    if (!Opt.All && !Scan.UsesLibTorch) {
      ++P.SkippedNoTorch;
      continue;
    }
    P.Units.push_back(*C);
  }

  Opt.Tidy.BuildDir = P.Db.Directory;
  // The fast path's pieces: the scope module beside the plugin, clang beside
  // clang-tidy, the cache keys.
  if (Opt.UsePch || !Opt.PchFile.empty()) {
    llvm::SmallString<256> Scope(llvm::sys::path::parent_path(Opt.Tidy.Plugin));
    llvm::sys::path::append(Scope, "LibTorchTidyScope.so");
    if (llvm::sys::fs::exists(Scope))
      P.ScopeModule = std::string(Scope);
    P.Clang = clangBesideTidy(Opt.Tidy.ClangTidy);
  }
  FileHasher Hasher;
  P.Keys.resize(P.Units.size());
  if (Opt.UseCache || P.Shard) {
    std::string ToolId = toolIdentity(Opt.Tidy.ClangTidy, Opt.Tidy.Plugin, P.ScopeModule, Hasher);
    P.ToolId = ToolId;
    for (size_t I = 0; I < P.Units.size(); ++I) {
      P.Keys[I] = commandKey(ToolId, Opt.Tidy, P.Units[I], Hasher);
      // The linked summaries by content, narrowed to what the unit reads
      // from them: an edit elsewhere that changes them re-analyses exactly
      // the units that depend on the summaries it changed.
      if (!Opt.Tidy.Summaries.empty()) {
        auto It = Opt.SummaryDependencies.find(P.Units[I].File);
        P.Keys[I] = hashParts({P.Keys[I], It != Opt.SummaryDependencies.end()
                                              ? "summaries-read:" + It->second
                                              : "summaries:" + Hasher.hash(Opt.Tidy.Summaries)});
      }
    }
  }

  // This shard's part.
  if (P.Shard) {
    ResultCache Cache(P.CacheDir, P.CacheCap, Hasher);
    std::vector<std::string> Names;
    std::vector<double> Costs;
    for (size_t I = 0; I < P.Units.size(); ++I) {
      Names.push_back(displayPath(P.Units[I].File, Opt.Cwd));
      std::optional<double> Known = Opt.UseCache ? Cache.recordedSeconds(P.Keys[I]) : std::nullopt;
      Costs.push_back(Known ? *Known : Scanner.scan(P.Units[I]).UsesLibTorch ? 10.0 : 2.0);
    }
    std::vector<size_t> Mine = shardUnits(Names, Costs, *P.Shard);
    P.ShardReport = ShardInfo{P.Shard->Index, P.Shard->Total, {}};
    std::vector<CompileCommand> Kept;
    std::vector<std::string> KeptKeys;
    for (size_t I : Mine) {
      Kept.push_back(P.Units[I]);
      KeptKeys.push_back(P.Keys[I]);
      P.ShardReport->Units.push_back(Names[I]);
    }
    P.OtherShards = P.Units.size() - Kept.size();
    P.Units = std::move(Kept);
    P.Keys = std::move(KeptKeys);
  }
  P.Opt = std::move(Opt);
  return P;
}

AnalysisRun runAnalysis(const AnalysisPlan &P) {
  const AnalysisOptions &Opt = P.Opt;
  const std::vector<CompileCommand> &Units = P.Units;
  AnalysisRun Run;
  Run.Results.resize(Units.size());
  FileHasher Hasher;
  ResultCache Cache(P.CacheDir, P.CacheCap, Hasher);

  // Cached results first; the PCH plans of the others.
  std::vector<bool> &Hit = Run.FromCache;
  Hit.assign(Units.size(), false);
  if (Opt.UseCache)
    for (size_t I = 0; I < Units.size(); ++I)
      if (auto E = Cache.lookup(P.Keys[I])) {
        auto Parsed = E->ExportedFixes.empty() ? llvm::Expected<std::vector<Finding>>(std::vector<Finding>())
                                               : parseExportedFixes(E->ExportedFixes);
        if (!Parsed) {
          llvm::consumeError(Parsed.takeError());
          continue;
        }
        Run.Results[I].Findings = std::move(*Parsed);
        Run.Results[I].Seconds = E->Seconds;
        Run.Results[I].Summaries = std::move(E->Summaries);
        Hit[I] = true;
        ++Run.Hits;
      }
  PchStore Pchs(P.CacheDir, P.Clang);
  std::vector<PchPlan> Plans(Units.size());
  if (Opt.UsePch && !P.Clang.empty()) {
    std::string ClangId = P.Clang + "\n" + runProcess(P.Clang, {P.Clang, "--version"}, 60).Output;
    llvm::StringMap<unsigned> Users;
    for (size_t I = 0; I < Units.size(); ++I)
      if (!Hit[I]) {
        Plans[I] = planPch(Units[I], Opt.Tidy.ExtraArgs, ClangId);
        if (Plans[I].Usable)
          ++Users[Plans[I].Key];
      }
    // A PCH pays for itself from the second translation unit that uses it.
    for (PchPlan &Plan : Plans)
      if (Plan.Usable && Users[Plan.Key] < 2 && !Pchs.exists(Plan)) {
        Plan.Usable = false;
        Plan.WhyNot = "no other file starts with the same LibTorch headers and flags";
      }
    Run.NoPchReasons.resize(Units.size());
    for (size_t I = 0; I < Units.size(); ++I)
      if (!Hit[I] && !Plans[I].Usable)
        Run.NoPchReasons[I] = Plans[I].WhyNot;
  }
  // The caller's precompiled header (--pch-file), where LibTorch comes first.
  std::vector<bool> Prebuilt(Units.size(), false);
  if (!Opt.PchFile.empty()) {
    Run.NoPchReasons.resize(Units.size());
    for (size_t I = 0; I < Units.size(); ++I)
      if (!Hit[I])
        Prebuilt[I] = startsWithLibTorch(Units[I], Run.NoPchReasons[I]);
  }

  std::atomic<size_t> PchRuns{0}, PchFallbacks{0};
  Progress Bar(Opt.Progress, Units.size(), Opt.Cwd);
  {
    unsigned Threads =
        Opt.Jobs ? Opt.Jobs : llvm::heavyweight_hardware_concurrency().compute_thread_count();
    Threads = std::max(1u, std::min<unsigned>(Threads, std::max<size_t>(1, Units.size())));
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Threads));
    std::mutex DoneMutex;
    std::condition_variable DoneCv;
    size_t Done = 0;
    for (size_t I = 0; I < Units.size(); ++I)
      Pool.async([&, I] {
        Bar.started(Units[I].File);
        if (!Hit[I]) {
          TidyRunExtras Extras;
          Extras.ScopeModule = P.ScopeModule;
          Extras.ListIncludes = Opt.UseCache;
          std::vector<std::string> PchFiles;
          if (Plans[I].Usable) {
            PchStore::Built B = Pchs.get(Plans[I]);
            if (B.Ok) {
              Extras.Pch = B.Pch;
              PchFiles = std::move(B.Files);
            } else {
              Run.NoPchReasons[I] = "the precompiled header did not build: " + B.Error;
            }
          } else if (Prebuilt[I]) {
            Extras.Pch = Opt.PchFile;
          }
          // Each unit with its own database (-p), when several are read.
          TidyOptions Tidy = Opt.Tidy;
          if (!Units[I].Database.empty())
            Tidy.BuildDir = Units[I].Database;
          TidyResult R = runClangTidy(Tidy, Units[I].File, Extras);
          if (!Extras.Pch.empty()) {
            ++PchRuns;
            if (pchRunFailed(R)) {
              // Whatever went wrong, the plain parse decides.
              if (Plans[I].Usable && (llvm::StringRef(R.Error).contains("precompiled") ||
                                      llvm::any_of(R.Findings, [](const Finding &F) {
                                        return llvm::StringRef(F.Message).contains("precompiled header") ||
                                               llvm::StringRef(F.Message).contains(".pch");
                                      })))
                Pchs.discard(Plans[I]);
              ++PchFallbacks;
              Extras.Pch.clear();
              PchFiles.clear();
              R = runClangTidy(Tidy, Units[I].File, Extras);
            }
          }
          if (crashed(R))
            R = isolateCrashes(Tidy, Units[I].File, Extras, std::move(R), crashReportDir(P));
          // A result without a crashed check's findings is not cached: the
          // next run reports the crash again instead of a quietly shorter list.
          if (Opt.UseCache && !R.Failed && R.Crashes.empty()) {
            std::vector<std::string> Files = {Units[I].File};
            Files.insert(Files.end(), R.Includes.begin(), R.Includes.end());
            Files.insert(Files.end(), PchFiles.begin(), PchFiles.end());
            Cache.store(P.Keys[I], {R.ExportedFixes, R.Seconds, R.Summaries}, Files);
          }
          Run.Results[I] = std::move(R);
        }
        Bar.finished();
        std::lock_guard<std::mutex> Lock(DoneMutex);
        ++Done;
        DoneCv.notify_all();
      });
    std::unique_lock<std::mutex> Lock(DoneMutex);
    while (Done < Units.size()) {
      DoneCv.wait_for(Lock, std::chrono::seconds(1));
      Lock.unlock();
      Bar.tick();
      Lock.lock();
    }
    Lock.unlock();
    Pool.wait();
  }
  Bar.clear();
  if (Opt.UseCache || Opt.UsePch) {
    llvm::StringMap<bool> Keep;
    Pchs.usedFiles(Keep);
    Cache.trim(Keep);
  }
  Run.PchRuns = PchRuns;
  Run.PchFallbacks = PchFallbacks;
  Run.Seconds = Bar.elapsed();
  return Run;
}

llvm::Error checkSummariesUsable(const TidyOptions &Tidy) {
  if (!Tidy.ConfigFile.empty())
    return error("--config-file does not combine with the summaries of other files: put the "
                 "configuration in a .clang-tidy file");
  return llvm::Error::success();
}

llvm::Expected<SummariesPass> summarizeProject(AnalysisOptions Opt) {
  if (llvm::Error E = checkSummariesUsable(Opt.Tidy))
    return E;
  Opt.Diff.reset();
  Opt.Shard = "1/1";
  // Any torch- check brings the analysis core, which writes the unit's
  // summaries whichever checks run (CoreCheck.h); their findings are not
  // kept. All of them: their share of a unit's time is small beside the
  // parse (docs/performance.md), and one check crashing is taken out by the
  // run's crash isolation without losing the unit's summaries.
  Opt.Tidy.Checks = "-*,torch-*";
  Opt.Tidy.Summaries.clear();
  Opt.Tidy.WriteSummaries = true;
  Opt.Tidy.RequireSummaries = true;
  auto Plan = planAnalysis(std::move(Opt));
  if (!Plan)
    return Plan.takeError();
  AnalysisRun Run = runAnalysis(*Plan);
  SummariesPass Pass;
  Pass.Units = Plan->Units.size();
  Pass.Hits = Run.Hits;
  Pass.Seconds = Run.Seconds;
  Pass.CacheDir = Plan->CacheDir;
  std::vector<std::pair<std::string, clang::tidy::torch_check::SummaryDocument>> Docs;
  for (size_t I = 0; I < Plan->Units.size(); ++I) {
    const TidyResult &R = Run.Results[I];
    std::string File = displayPath(Plan->Units[I].File, Plan->Opt.Cwd);
    if (R.Failed) {
      Pass.Failures.push_back({File, R.Error, "", Plan->Units[I].File, R.CrashReport});
      continue;
    }
    auto Doc = clang::tidy::torch_check::parseSummaryDocument(R.Summaries);
    if (!Doc) {
      Pass.Failures.push_back({File, "its summaries: " + llvm::toString(Doc.takeError()), "", Plan->Units[I].File, ""});
      continue;
    }
    Pass.Linked.merge(*Doc);
    Docs.push_back({Plan->Units[I].File, std::move(*Doc)});
  }
  // Chains of calls over several files (SummaryDocument::composeCalls).
  Pass.Linked.composeCalls();
  for (const auto &[File, Doc] : Docs)
    Pass.Dependencies[File] = hashParts({Pass.Linked.dependencies(Doc)});
  return Pass;
}

llvm::Expected<CrossUnitDecision> decideAcrossUnits(AnalysisPlan &Plan, AnalysisRun &Run) {
  using clang::tidy::torch_check::SummaryDocument;
  CrossUnitDecision D;
  // The summaries the analysis wrote; the rest of the compile database.
  std::vector<std::optional<SummaryDocument>> Docs(Plan.Units.size());
  AnalysisOptions SOpt = Plan.Opt;
  SOpt.Paths.clear(); // every file's summaries count
  SOpt.Progress = false;
  for (size_t I = 0; I < Plan.Units.size(); ++I) {
    const TidyResult &R = Run.Results[I];
    if (R.Failed || R.Summaries.empty()) {
      if (R.Failed) // it fails in the summaries pass too: no summaries
        SOpt.Skip.insert(Plan.Units[I].File);
      continue;
    }
    auto Doc = clang::tidy::torch_check::parseSummaryDocument(R.Summaries);
    if (!Doc) {
      llvm::consumeError(Doc.takeError()); // the summaries pass decides
      continue;
    }
    Docs[I] = std::move(*Doc);
    SOpt.Skip.insert(Plan.Units[I].File);
    ++D.Summarised;
    D.SummaryHits += Run.FromCache[I];
  }
  // The analysis covered the whole compile database and every unit of it
  // summarised or failed: nothing is left to summarise (the summaries pass
  // would only plan and skip).
  bool Covered = Plan.Selected == Plan.Db.Commands.size() && !Plan.SkippedNoChange &&
                 !Plan.OtherShards && SOpt.Skip.size() == Plan.Units.size();
  llvm::Expected<SummariesPass> Pass =
      Covered ? llvm::Expected<SummariesPass>(SummariesPass()) : summarizeProject(std::move(SOpt));
  if (!Pass)
    return Pass.takeError();
  if (Covered)
    Pass->CacheDir = Plan.CacheDir;
  D.Summarised += Pass->Units - Pass->Failures.size();
  D.SummaryHits += Pass->Hits;
  D.Seconds += Pass->Seconds;
  for (const std::optional<SummaryDocument> &Doc : Docs)
    if (Doc)
      Pass->Linked.merge(*Doc);
  Pass->Linked.composeCalls();
  D.Functions = Pass->Linked.Functions.size();
  auto Linked = storeLinkedSummaries(*Pass, D.Temporary);
  if (!Linked)
    return Linked.takeError();
  D.LinkedPath = *Linked;

  // From here on the plan is the analysis with the linked summaries: its
  // options and keys (the key of a unit holds what it reads from them).
  Plan.Opt.Tidy.Summaries = D.LinkedPath;
  Plan.Opt.Tidy.WriteSummaries = false;
  Plan.Opt.Tidy.RequireSummaries = true;
  FileHasher Hasher;
  auto DependenciesOf = [&](size_t I) -> std::string {
    if (Docs[I])
      return "summaries-read:" + hashParts({Pass->Linked.dependencies(*Docs[I])});
    return "summaries:" + Hasher.hash(D.LinkedPath);
  };
  for (size_t I = 0; I < Plan.Units.size(); ++I)
    if (!Plan.ToolId.empty())
      Plan.Keys[I] = hashParts({commandKey(Plan.ToolId, Plan.Opt.Tidy, Plan.Units[I], Hasher),
                                DependenciesOf(I)});

  // The units whose findings the linked summaries can change, again.
  AnalysisPlan Again = Plan;
  Again.Units.clear();
  Again.Keys.clear();
  Again.Opt.Progress = false;
  std::vector<size_t> Index;
  for (size_t I = 0; I < Plan.Units.size(); ++I) {
    const TidyResult &R = Run.Results[I];
    // A unit without summaries of its own (none written, unreadable) reads
    // who knows what: again too.
    if (R.Failed || (Docs[I] && !Pass->Linked.changesAnalysisOf(*Docs[I])))
      continue;
    Index.push_back(I);
    Again.Units.push_back(Plan.Units[I]);
    Again.Keys.push_back(Plan.Keys[I]);
  }
  D.Decided = Index.size();
  if (Index.empty())
    return D;
  AnalysisRun Second = runAnalysis(Again);
  D.DecidedHits = Second.Hits;
  D.Seconds += Second.Seconds;
  Run.PchRuns += Second.PchRuns;
  Run.PchFallbacks += Second.PchFallbacks;
  Run.Seconds += Second.Seconds;
  for (size_t J = 0; J < Index.size(); ++J) {
    size_t I = Index[J];
    Run.Results[I] = std::move(Second.Results[J]);
    if (Run.FromCache[I] && !Second.FromCache[J]) {
      Run.FromCache[I] = false;
      --Run.Hits;
    }
    if (J < Second.NoPchReasons.size() && I < Run.NoPchReasons.size() &&
        !Second.NoPchReasons[J].empty())
      Run.NoPchReasons[I] = Second.NoPchReasons[J];
  }
  return D;
}

llvm::Expected<std::string> storeLinkedSummaries(const SummariesPass &Pass, bool &Temporary) {
  std::string Text = Pass.Linked.toText();
  llvm::SmallString<256> Path;
  Temporary = false;
  if (!Pass.CacheDir.empty() && llvm::sys::fs::is_directory(Pass.CacheDir)) {
    Path = Pass.CacheDir;
    llvm::sys::path::append(Path, "summaries-" + hashParts({Text}).substr(0, 16) + ".json");
  } else if (auto EC = llvm::sys::fs::createTemporaryFile("libtorch-tidy-linked", "json", Path)) {
    return error("cannot create a temporary file: " + EC.message());
  } else {
    Temporary = true;
  }
  if (llvm::Error E = writeFileAtomicallyIn(Path, Text))
    return E;
  if (!Temporary)
    if (llvm::Error E = storeLatestSummaries(Pass, Text))
      return E;
  return std::string(Path);
}

llvm::Error storeLatestSummaries(const SummariesPass &Pass, llvm::StringRef Text) {
  if (Pass.CacheDir.empty() || !llvm::sys::fs::is_directory(Pass.CacheDir))
    return llvm::Error::success();
  llvm::SmallString<256> Path(Pass.CacheDir);
  llvm::sys::path::append(Path, clang::tidy::torch_check::LatestSummariesName);
  return writeFileAtomicallyIn(Path, Text);
}

/// The C++ standard a compile command asks for (11 for -std=gnu++11, 98 for
/// c++03), or 0 when it names none.
static unsigned languageStandard(const CompileCommand &C, std::string &Flag) {
  unsigned Std = 0;
  for (llvm::StringRef A : C.Arguments) {
    llvm::StringRef V = A;
    if (!V.consume_front("-std=") && !V.consume_front("--std=") && !V.consume_front("/std:"))
      continue;
    llvm::SmallVector<llvm::StringRef, 2> M;
    if (!llvm::Regex("^(gnu|c)\\+\\+([0-9][0-9a-z])$").match(V, &M))
      continue;
    static const llvm::StringMap<unsigned> Aliases = {{"0x", 11}, {"1y", 14}, {"1z", 17}, {"2a", 20},
                                                       {"2b", 23}, {"2c", 26}, {"03", 98}};
    auto It = Aliases.find(M[2]);
    unsigned N = It != Aliases.end() ? It->second : 0;
    if (!N && M[2].getAsInteger(10, N))
      continue;
    Std = N;
    Flag = A.str();
  }
  return Std;
}

/// The fix of a unit that does not compile, when its first error names it:
/// a missing header (an -I, or the OpenMP headers of the clang in use), or a
/// language standard too old for LibTorch, whose headers say so in an #error
/// ("You need C++14 to compile PyTorch") before a cascade of other errors.
std::string fixFor(llvm::StringRef Error, const CompileCommand &C) {
  llvm::SmallVector<llvm::StringRef, 2> M;
  if (llvm::Regex("'([^']+)' file not found").match(Error, &M)) {
    if (M[1] == "omp.h")
      return "install the OpenMP headers of clang " + std::to_string(pluginLLVMMajor()) +
             " (Debian: apt-get install libomp-" + std::to_string(pluginLLVMMajor()) + "-dev)";
    return "pass the directory holding '" + M[1].str() + "' with --extra-arg=-I<dir>";
  }
  if (llvm::Regex("C\\+\\+ ?[0-9][0-9]").match(Error)) {
    // The torch- checks need C++17 (isLanguageVersionSupported), and so does
    // LibTorch 2; 1.13 wants C++14.
    std::string Flag;
    unsigned Std = languageStandard(C, Flag);
    if (Std && Std != 98 && Std >= 17)
      return "";
    return "compile with -std=c++17 or later (" +
           (Flag.empty() ? std::string("the compile command sets no -std") : "the compile command has " + Flag) +
           ")";
  }
  return "";
}

/// The error that says why a unit does not compile: one whose fix is known,
/// else the first with a location. clang-tidy sorts its diagnostics by file,
/// so the locationless "too many errors emitted" comes first, and the
/// errors of a cascade come in the order of their files' paths, not of
/// their cause.
static Finding *firstCompileError(std::vector<Finding> &Findings, const CompileCommand &C,
                                  SourceCache &Sources) {
  Finding *First = nullptr, *Located = nullptr;
  for (Finding &F : Findings) {
    if (!F.isCompilerError())
      continue;
    if (!First)
      First = &F;
    if (F.Loc.File.empty())
      continue;
    Sources.locate(F.Loc);
    if (!fixFor(F.Message, C).empty())
      return &F;
    if (!Located)
      Located = &F;
  }
  return Located ? Located : First;
}

FindingsModel collectFindings(const AnalysisPlan &P, AnalysisRun &Run) {
  FindingsModel M;
  for (size_t I = 0; I < P.Units.size(); ++I) {
    TidyResult &R = Run.Results[I];
    if (R.Failed) {
      // Not analysed: its compiler errors explain why; none of its
      // diagnostics is a finding.
      UnitFailure U{displayPath(P.Units[I].File, P.Opt.Cwd), R.Error, "", P.Units[I].File, R.CrashReport};
      if (Finding *F = firstCompileError(R.Findings, P.Units[I], *M.Sources)) {
        U.Reason = "does not compile: " + displayPath(F->Loc.File, P.Opt.Cwd) + ":" +
                   std::to_string(F->Loc.Line) + ":" + std::to_string(F->Loc.Column) + ": error: " +
                   F->Message;
        U.Suggestion = fixFor(F->Message, P.Units[I]);
      }
      M.Failures.push_back(std::move(U));
      continue;
    }
    ++M.Analysed;
    for (CheckCrash &C : R.Crashes)
      M.Crashes.push_back({displayPath(P.Units[I].File, P.Opt.Cwd), P.Units[I].File, std::move(C)});
    for (Finding &F : R.Findings) {
      M.Sources->locate(F.Loc);
      for (Note &N : F.Notes)
        M.Sources->locate(N.Loc);
      M.Findings.push_back(std::move(F));
    }
  }
  sortAndDedupe(M.Findings);
  return M;
}

namespace {

/// The files of the change as they were at the base revision, written where
/// clang can read them, and the VFS overlay that shows them at their paths.
struct BaseTree {
  llvm::StringMap<std::string> Contents; // real path -> base text
  llvm::StringMap<std::string> Copies;   // real path -> file holding the base text
  llvm::StringSet<> Absent;              // real paths that did not exist at the base
  std::string Overlay;                   // the overlay file
  std::string Hash;                      // of every base text, for cache keys
};

llvm::Expected<BaseTree> writeBaseTree(const AnalysisPlan &P) {
  BaseTree T;
  llvm::SmallString<256> Dir;
  if (llvm::sys::fs::is_directory(P.CacheDir)) {
    Dir = P.CacheDir;
    llvm::sys::path::append(Dir, "base");
  } else if (auto EC = llvm::sys::fs::createUniqueDirectory("libtorch-tidy-base", Dir)) {
    return error("cannot create a temporary directory: " + EC.message());
  }
  std::vector<std::string> HashParts = {"base-v1"};
  // Overlay: one directory entry per directory, one file entry per file.
  std::map<std::string, llvm::json::Array> PerDir;
  for (const auto &E : P.Changed->Files) {
    std::string File = E.getKey().str();
    std::optional<std::string> Text = fileAtRevision(*P.Changed, File);
    if (!Text) {
      T.Absent.insert(File);
      HashParts.push_back(File + "\nabsent");
      continue;
    }
    std::string H = hashParts({*Text});
    llvm::SmallString<256> Copy(Dir);
    llvm::sys::path::append(Copy, H + llvm::sys::path::extension(File).str());
    if (!llvm::sys::fs::exists(Copy))
      if (auto Err = writeFileAtomicallyIn(Copy, *Text))
        return Err;
    HashParts.push_back(File + "\n" + H);
    PerDir[llvm::sys::path::parent_path(File).str()].push_back(
        llvm::json::Object{{"type", "file"},
                           {"name", llvm::sys::path::filename(File).str()},
                           {"external-contents", std::string(Copy)}});
    T.Copies[File] = std::string(Copy);
    T.Contents[File] = std::move(*Text);
  }
  llvm::json::Array Roots;
  for (auto &[D, Files] : PerDir)
    Roots.push_back(llvm::json::Object{{"type", "directory"}, {"name", D}, {"contents", std::move(Files)}});
  llvm::json::Object Overlay{{"version", 0},
                             {"case-sensitive", "true"},
                             {"use-external-names", "false"},
                             {"roots", std::move(Roots)}};
  T.Hash = hashParts(HashParts);
  llvm::SmallString<256> OverlayPath(Dir);
  llvm::sys::path::append(OverlayPath, T.Hash + ".overlay.yaml");
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(Overlay));
  if (auto Err = writeFileAtomicallyIn(OverlayPath, Text))
    return Err;
  T.Overlay = std::string(OverlayPath);
  return T;
}

/// What makes two findings the same across an edit that moves lines: the
/// check, the file, the message and the text of the line (whitespace
/// collapsed).
std::string identity(const Finding &F, llvm::StringRef LineText) {
  std::string Collapsed;
  for (llvm::StringRef W : llvm::split(LineText, ' '))
    if (!W.trim().empty())
      Collapsed += W.trim().str() + " ";
  return F.Check + "\n" + F.Loc.File + "\n" + F.Message + "\n" + Collapsed;
}

} // namespace

void filterByDiff(const AnalysisPlan &P, FindingsModel &M) {
  if (!P.Changed)
    return;
  // The touched units that existed at the base revision, analysed there.
  auto Tree = writeBaseTree(P);
  std::string Why;
  std::optional<AnalysisPlan> Base;
  if (!Tree) {
    Why = llvm::toString(Tree.takeError());
  } else {
    Base.emplace();
    Base->Opt = P.Opt;
    Base->Opt.UsePch = false; // the precompiled header was built without the overlay
    Base->Opt.Progress = false;
    Base->Opt.Tidy.VfsOverlay = Tree->Overlay;
    Base->Selected = P.Selected;
    Base->CacheDir = P.CacheDir;
    Base->CacheCap = P.CacheCap;
    Base->ScopeModule = P.ScopeModule;
    for (size_t I = 0; I < P.Units.size(); ++I) {
      if (Tree->Absent.contains(canonical(P.Units[I].File)))
        continue; // new: all of its findings are new
      Base->Units.push_back(P.Units[I]);
      Base->Keys.push_back(P.Keys[I].empty() ? "" : hashParts({P.Keys[I], "base", Tree->Hash}));
    }
  }
  llvm::StringMap<unsigned> AtBase;
  if (Base) {
    AnalysisRun Run = runAnalysis(*Base);
    M.BaseUnits = Base->Units.size();
    M.BaseHits = Run.Hits;
    M.BaseSeconds = Run.Seconds;
    SourceCache BaseSources;
    for (size_t I = 0; I < Base->Units.size() && Why.empty(); ++I) {
      if (Run.Results[I].Failed) {
        Why = displayPath(Base->Units[I].File, P.Opt.Cwd) + " does not compile at " + P.Changed->Revision;
        break;
      }
    }
    if (Why.empty()) {
      std::vector<Finding> Found;
      for (TidyResult &R : Run.Results)
        for (Finding &F : R.Findings)
          Found.push_back(std::move(F));
      sortAndDedupe(Found);
      for (Finding &F : Found) {
        auto Copy = Tree->Copies.find(canonical(F.Loc.File));
        llvm::StringRef Text;
        if (Copy != Tree->Copies.end()) {
          Location L = F.Loc;
          L.File = Copy->second;
          BaseSources.locate(L);
          Text = BaseSources.lineText(L.File, L.Line);
        } else {
          M.Sources->locate(F.Loc);
          Text = M.Sources->lineText(F.Loc.File, F.Loc.Line);
        }
        ++AtBase[identity(F, Text)];
      }
    }
  }
  if (!Why.empty()) {
    // No comparison: the changed lines decide, as clang-tidy-diff does.
    M.BaseUnavailable = Why;
    std::vector<Finding> Kept;
    for (Finding &F : M.Findings) {
      if (P.Changed->contains(canonical(F.Loc.File), F.Loc.Line))
        Kept.push_back(std::move(F));
      else
        ++M.OutsideDiff;
    }
    M.Findings = std::move(Kept);
    return;
  }
  // New findings count wherever they are; those that only moved do not.
  std::vector<Finding> Kept;
  for (Finding &F : M.Findings) {
    auto It = AtBase.find(identity(F, M.Sources->lineText(F.Loc.File, F.Loc.Line)));
    if (It != AtBase.end() && It->second > 0) {
      --It->second;
      ++M.AtBase;
    } else {
      Kept.push_back(std::move(F));
    }
  }
  M.Findings = std::move(Kept);
}

void filterByBaseline(FindingsModel &M, const llvm::StringSet<> *Accepted, llvm::StringRef Root) {
  computeFingerprints(M.Findings, *M.Sources, Root);
  if (!Accepted)
    return;
  std::vector<Finding> Kept;
  for (Finding &F : M.Findings) {
    if (Accepted->contains(F.Fingerprint))
      ++M.InBaseline;
    else
      Kept.push_back(std::move(F));
  }
  M.Findings = std::move(Kept);
}

std::string countOf(size_t N, llvm::StringRef Singular, llvm::StringRef Plural) {
  return std::to_string(N) + " " +
         (N == 1 ? Singular.str() : Plural.empty() ? Singular.str() + "s" : Plural.str());
}

void printSummary(const AnalysisPlan &P, const AnalysisRun &Run, const FindingsModel &M,
                  llvm::raw_ostream &OS) {
  std::map<std::string, unsigned> PerCheck;
  llvm::StringSet<> FilesWithFindings;
  for (const Finding &F : M.Findings) {
    ++PerCheck[F.Check];
    FilesWithFindings.insert(F.Loc.File);
  }
  OS << "libtorch-tidy: ";
  if (M.Fixed)
    OS << countOf(M.Fixed, "finding") << " fixed, " << M.Findings.size() << " left";
  else
    OS << countOf(M.Findings.size(), "finding");
  if (!M.Findings.empty()) {
    OS << " in " << countOf(FilesWithFindings.size(), "file") << " (";
    bool First = true;
    for (const auto &[Check, Count] : PerCheck) {
      OS << (First ? "" : ", ") << Check << ": " << Count;
      First = false;
    }
    OS << ")";
  }
  OS << "; " << M.Analysed << " of " << P.Selected << " translation units analysed";
  if (!M.Crashes.empty()) {
    llvm::StringSet<> Partial;
    for (const UnitCrash &C : M.Crashes)
      Partial.insert(C.File);
    OS << " (" << Partial.size() << " without the findings of a check that crashed)";
  }
  if (!M.Failures.empty())
    OS << ", " << M.Failures.size() << " could not be";
  if (P.SkippedNoTorch)
    OS << ", " << P.SkippedNoTorch << " skipped (no LibTorch include)";
  if (P.Changed)
    OS << ", " << P.SkippedNoChange << " untouched by the diff against " << P.Changed->Revision;
  if (P.Shard)
    OS << ", " << P.OtherShards << " left to the other shards (shard " << P.Shard->Index << "/"
       << P.Shard->Total << ")";
  // The time of the whole analysis: with --diff, the base revision's too.
  OS << llvm::formatv("; {0:f1} s", Run.Seconds + M.BaseSeconds);
  if (Run.Hits || Run.PchRuns)
    OS << " (" << Run.Hits << " from the cache, " << (Run.PchRuns - Run.PchFallbacks)
       << " with the precompiled LibTorch header"
       << (Run.PchFallbacks ? ", " + std::to_string(Run.PchFallbacks) + " parsed again without it" : "")
       << ")";
  OS << "\n";
  if (P.Changed && M.BaseUnavailable.empty() && M.BaseUnits)
    OS << "libtorch-tidy: " << countOf(M.AtBase, "finding") << " already at " << P.Changed->Revision
       << " not reported (" << countOf(M.BaseUnits, "translation unit") << " analysed there, "
       << M.BaseHits << " from the cache, " << llvm::formatv("{0:f1}", M.BaseSeconds) << " s)\n";
  if (!M.BaseUnavailable.empty())
    OS << "libtorch-tidy: no comparison with " << P.Changed->Revision << " (" << M.BaseUnavailable
       << "): only findings on changed lines are reported\n";
  if (M.OutsideDiff)
    OS << "libtorch-tidy: " << countOf(M.OutsideDiff, "finding") << " on unchanged lines not reported\n";
  // Why files were parsed in full, counted by reason (the units that could
  // not be analysed have their own lines).
  llvm::StringSet<> Failed;
  for (const UnitFailure &F : M.Failures)
    Failed.insert(F.File);
  std::map<std::string, size_t> NoPch;
  size_t NoPchTotal = 0;
  for (size_t I = 0; I < Run.NoPchReasons.size(); ++I)
    if (!Run.NoPchReasons[I].empty() && !Failed.contains(displayPath(P.Units[I].File, P.Opt.Cwd))) {
      ++NoPch[Run.NoPchReasons[I]];
      ++NoPchTotal;
    }
  if (NoPchTotal) {
    OS << "libtorch-tidy: " << NoPchTotal << " parsed without the precompiled LibTorch header: ";
    bool First = true;
    for (const auto &[Why, Count] : NoPch) {
      OS << (First ? "" : "; ") << Why << " (" << Count << ")";
      First = false;
    }
    OS << "\n";
  }
}

void printFailures(const FindingsModel &M, llvm::raw_ostream &OS) {
  for (const UnitFailure &F : M.Failures) {
    OS << "libtorch-tidy: not analysed: " << F.File << ": " << F.Reason << "\n";
    if (!F.Suggestion.empty())
      OS << "libtorch-tidy: fix: " << F.Suggestion << "\n";
    if (!F.CrashReport.empty())
      OS << "libtorch-tidy: crash report: " << F.CrashReport << "\n";
  }
  for (const UnitCrash &C : M.Crashes) {
    OS << "libtorch-tidy: check crashed: " << C.File << ": " << C.Crash.Check << ": " << C.Crash.Signal
       << "; its findings in this file are missing, the other checks' are reported\n";
    if (!C.Crash.Report.empty())
      OS << "libtorch-tidy: crash report: " << C.Crash.Report << "\n";
  }
}

std::vector<AnalysisNotice> analysisNotices(const FindingsModel &M) {
  std::vector<AnalysisNotice> Out;
  for (const UnitFailure &F : M.Failures)
    Out.push_back({F.Source.empty() ? F.File : F.Source, "",
                   "not analysed: " + F.Reason + (F.Suggestion.empty() ? "" : "; fix: " + F.Suggestion),
                   F.CrashReport});
  for (const UnitCrash &C : M.Crashes)
    Out.push_back({C.Source, C.Crash.Check,
                   C.Crash.Check + " crashed clang-tidy on this file (" + C.Crash.Signal +
                       "): its findings here are missing, the other checks' are reported",
                   C.Crash.Report});
  return Out;
}

ProjectAnalysis::~ProjectAnalysis() {
  if (CrossUnits && CrossUnits->Temporary)
    llvm::sys::fs::remove(CrossUnits->LinkedPath);
}

llvm::Expected<std::unique_ptr<ProjectAnalysis>> analyseProject(AnalysisOptions Opt, bool CrossTU) {
  if (CrossTU) {
    // One parse per unit: the analysis writes each unit's summaries, then
    // the units whose findings depend on other files are decided again.
    if (llvm::Error E = checkSummariesUsable(Opt.Tidy))
      return E;
    Opt.Tidy.WriteSummaries = true;
    Opt.Tidy.RequireSummaries = false;
  }
  auto Plan = planAnalysis(std::move(Opt));
  if (!Plan)
    return Plan.takeError();
  auto A = std::make_unique<ProjectAnalysis>();
  A->Plan = std::move(*Plan);
  A->Run = runAnalysis(A->Plan);
  if (CrossTU) {
    auto D = decideAcrossUnits(A->Plan, A->Run);
    if (!D)
      return D.takeError();
    A->CrossUnits = std::move(*D);
  }
  A->Model = collectFindings(A->Plan, A->Run);
  filterByDiff(A->Plan, A->Model);
  return A;
}

void printCrossUnits(const CrossUnitDecision &D, llvm::raw_ostream &OS) {
  OS << "libtorch-tidy: linked the summaries of " << countOf(D.Summarised, "translation unit") << " ("
     << countOf(D.Functions, "function") << ", " << D.SummaryHits << " from the cache); " << D.Decided
     << " whose findings depend on them decided again (" << D.DecidedHits << " from the cache) in "
     << llvm::formatv("{0:f1}", D.Seconds) << " s\n";
}

std::string crashedChecksLine(const FindingsModel &M) {
  if (M.Crashes.empty())
    return "";
  std::set<std::string> Checks, Files;
  for (const UnitCrash &C : M.Crashes) {
    Checks.insert(C.Crash.Check);
    Files.insert(C.File);
  }
  return llvm::join(Checks, ", ") + " crashed on " +
         countOf(Files.size(), "translation unit") + " (" +
         (Files.size() == 1 ? *Files.begin() : std::string("listed above")) +
         "): the findings of the other checks are reported";
}

} // namespace libtorch_tidy
