//===--- TidyCommand.cpp - libtorch-tidy tidy -----------------------------===//
//
//   libtorch-tidy tidy [--cache-dir=DIR] [--clang-tidy=PATH] [--no-pch]
//                      [CLANG-TIDY OPTIONS...] SOURCE -- COMPILER ARGS...
//
// What a build runs instead of clang-tidy (libtorch_tidy_enable sets it as the
// target's CXX_CLANG_TIDY; CMake appends the source and `-- <compile command>`).
// It runs the same clang-tidy with the same options and prints its output and
// exit status unchanged, but gives it the precompiled LibTorch header of the
// analysis (Pch.h): built once per header list and flags in DIR/pch, shared by
// every compile of the build (and by `libtorch-tidy` runs with the same cache
// directory), so the checks cost a build the parse of the user's code instead
// of a second parse of <torch/torch.h> per file.
//
// Parallel compiles wait for the one building a header (an flock on
// DIR/pch/KEY.lock); a header that failed to build is remembered (KEY.failed)
// and not retried; a run with the header that reports a compiler error is run
// again without it, so the header never changes what the build reports.
// CMake's own precompiled-header source (cmake_pch.*) holds no user code and
// is not analysed. When clang-tidy dies of a crash, the checks that crash are
// found and taken out as the analysis does (CrashIsolation.h): the other
// checks' output is printed, each crash named with its report on stderr, and
// the exit status is 4. Without DIR, or when the source does not start with the
// LibTorch includes, it is clang-tidy as given.
//
//===----------------------------------------------------------------------===//
#include "TidyCommand.h"
#include "AnalysisFlags.h"
#include "AnalyzeCommand.h"
#include "AtomicWrite.h"
#include "CrashIsolation.h"
#include "Pch.h"
#include "Process.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace libtorch_tidy {
namespace fs = llvm::sys::fs;

namespace {
const char Usage[] =
    "usage: libtorch-tidy tidy [--cache-dir=DIR] [--clang-tidy=PATH] [--no-pch] "
    "[CLANG-TIDY OPTIONS...] SOURCE -- COMPILER ARGS...";

/// An exclusive lock on a file, released when it goes out of scope (or the
/// process dies).
class FileLock {
public:
  explicit FileLock(const std::string &Path) {
    Fd = ::open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (Fd >= 0)
      while (::flock(Fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (Fd >= 0)
      ::close(Fd);
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;

private:
  int Fd = -1;
};

/// A compiler error in clang-tidy's output (not a finding made an error by
/// --warnings-as-errors).
bool reportsCompilerError(llvm::StringRef Output) {
  return Output.contains("[clang-diagnostic-error]") || Output.contains("fatal error:");
}

bool crashedProcess(const ProcessResult &R) {
  return !R.TimedOut && !R.Interrupted && isCrashSignal(R.Signal);
}

/// clang-tidy crashed on \p Source with \p Args (its options, the source,
/// `--` and the compile command): finds the checks that crash as the
/// analysis does (CrashIsolation.h), taking them out of the command's
/// --checks, prints the output of the run without them and names each crash
/// and its report on stderr. Exit status ExitCheckCrashed, or the crash's when
/// no check explains it.
int isolateTidyCrash(const std::string &ClangTidy, std::vector<std::string> Args, ProcessResult Crashed,
                     llvm::StringRef Source, llvm::StringRef ReportDir) {
  auto Report = [&](const ProcessResult &R, llvm::StringRef Check) {
    TidyResult T;
    T.Command = {ClangTidy};
    llvm::append_range(T.Command, Args);
    T.Output = R.Output;
    T.Error = R.Error;
    TidyRunExtras X;
    return writeCrashReport(ReportDir, Source, Check, T, X);
  };
  auto GiveUp = [&](const ProcessResult &R, const llvm::Twine &Why) {
    llvm::outs() << R.Output;
    llvm::outs().flush();
    std::string Path = Report(R, "");
    llvm::errs() << "libtorch-tidy tidy: " << Source << ": " << R.Error << " " << Why << "\n";
    if (!Path.empty())
      llvm::errs() << "libtorch-tidy tidy: crash report: " << Path << "\n";
    return ExitError;
  };
  // The command's own --checks (later globs win: the crashing ones are
  // appended as -NAME).
  std::string Checks;
  llvm::erase_if(Args, [&](const std::string &A) {
    llvm::StringRef V = A;
    if (V.consume_front("--checks=") || V.consume_front("-checks=")) {
      Checks = V.str();
      return true;
    }
    return false;
  });
  auto Run = [&](std::vector<std::string> Extra) {
    std::vector<std::string> Argv = {ClangTidy};
    llvm::append_range(Argv, Extra);
    llvm::append_range(Argv, Args);
    return runProcess(ClangTidy, Argv);
  };
  ProcessResult Listed = Run({"--list-checks", Checks.empty() ? "--checks=" : "--checks=" + Checks});
  std::vector<std::string> Enabled;
  if (Listed.Error.empty() && Listed.ExitCode == 0) {
    llvm::StringRef Out = Listed.Output;
    while (!Out.empty()) {
      llvm::StringRef Line;
      std::tie(Line, Out) = Out.split('\n');
      if (Line.starts_with("    ") && !Line.trim().empty())
        Enabled.push_back(Line.trim().str());
    }
  }
  if (Enabled.empty())
    return GiveUp(Crashed, "(no check to blame: clang-tidy --list-checks listed none)");
  auto RunWith = [&](llvm::ArrayRef<std::string> On) {
    std::string C = Checks;
    for (const std::string &Name : Enabled)
      if (!llvm::is_contained(On, Name))
        C += (C.empty() ? "-" : ",-") + Name;
    return Run({"--checks=" + C});
  };
  if (ProcessResult None = RunWith({}); crashedProcess(None))
    return GiveUp(None, "with none of its checks enabled: clang-tidy itself crashed");
  CrashSearch<ProcessResult> S =
      searchCrashingChecks(Enabled, std::move(Crashed), RunWith, crashedProcess,
                           [](const ProcessResult &R) { return R.Interrupted; });
  if (S.Interrupted)
    return fail("tidy: interrupted");
  if (!S.Ended)
    return GiveUp(S.Last, "without the checks that crashed too: given up after " +
                              std::to_string(S.Crashing.size()) + " crashing checks");
  llvm::outs() << S.Last.Output;
  llvm::outs().flush();
  for (const auto &F : S.Crashing) {
    llvm::errs() << "libtorch-tidy tidy: check crashed: " << Source << ": " << F.Check << ": "
                 << F.Smallest.Error << "; its findings in this file are missing, the other checks' are reported\n";
    std::string Path = Report(F.Smallest, F.Check);
    if (!Path.empty())
      llvm::errs() << "libtorch-tidy tidy: crash report: " << Path << "\n";
  }
  return ExitCheckCrashed;
}

/// The crash reports' directory: CACHE/crashes, else the system's temporary
/// directory.
std::string reportDir(llvm::StringRef CacheDir) {
  if (CacheDir.empty())
    return "";
  llvm::SmallString<256> D(makeAbsolute(std::string(CacheDir)));
  llvm::sys::path::append(D, "crashes");
  return std::string(D);
}

int runTidy(const std::string &ClangTidy, llvm::ArrayRef<std::string> Args, llvm::StringRef Source,
            llvm::StringRef CacheDir) {
  std::vector<std::string> Argv = {ClangTidy};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  ProcessResult R = runProcess(ClangTidy, Argv);
  if (crashedProcess(R))
    return isolateTidyCrash(ClangTidy, Args, std::move(R), Source, reportDir(CacheDir));
  llvm::outs() << R.Output;
  llvm::outs().flush();
  if (!R.Error.empty())
    return fail("tidy: " + ClangTidy + ": " + R.Error);
  return R.ExitCode;
}
} // namespace

int runTidyCommand(int Argc, const char **Argv) {
  std::string CacheDir, ClangTidyOverride;
  bool UsePch = true;
  std::vector<std::string> TidyArgs, Compile;
  bool SeenDashes = false;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    if (SeenDashes)
      Compile.push_back(A.str());
    else if (A == "--")
      SeenDashes = true;
    else if (A.consume_front("--cache-dir="))
      CacheDir = A.str();
    else if (A.consume_front("--clang-tidy="))
      ClangTidyOverride = A.str();
    else if (A == "--no-pch")
      UsePch = false;
    else if (A == "--help" || A == "-help") {
      llvm::outs() << Usage << "\n" << subcommandsHelp();
      return ExitClean;
    } else
      TidyArgs.push_back(A.str());
  }
  // The source: the last argument before `--` that is not an option.
  std::string Source;
  for (const std::string &A : TidyArgs)
    if (!llvm::StringRef(A).starts_with("-"))
      Source = A;
  if (!SeenDashes || Compile.empty() || Source.empty())
    return fail(llvm::Twine("tidy: expected SOURCE -- COMPILE COMMAND (") + Usage + ")");
  auto ClangTidy = findClangTidy(ClangTidyOverride);
  if (!ClangTidy)
    return fail(ClangTidy.takeError());
  if (llvm::sys::path::filename(Source).starts_with("cmake_pch."))
    return ExitClean; // CMake's generated header source: no user code

  if (CacheDir.empty())
    if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CACHE_DIR"))
      CacheDir = *Env;
  std::vector<std::string> Plain = TidyArgs;
  Plain.push_back("--");
  Plain.insert(Plain.end(), Compile.begin(), Compile.end());
  std::string Clang = clangBesideTidy(*ClangTidy);
  if (!UsePch || CacheDir.empty() || Clang.empty())
    return runTidy(*ClangTidy, Plain, Source, CacheDir);

  const std::string Cwd = currentDir();
  CompileCommand Command;
  Command.Directory = Cwd;
  Command.File = makeAbsolute(Source);
  Command.Arguments = Compile;
  std::vector<std::string> ExtraArgs;
  for (llvm::StringRef A : TidyArgs)
    if (A.consume_front("--extra-arg="))
      ExtraArgs.push_back(A.str());
  std::string ClangId = Clang + "\n" + runProcess(Clang, {Clang, "--version"}, 60).Output;
  PchPlan Plan = planPch(Command, ExtraArgs, ClangId);
  if (!Plan.Usable)
    return runTidy(*ClangTidy, Plain, Source, CacheDir);

  llvm::SmallString<256> Dir(makeAbsolute(CacheDir));
  llvm::sys::path::append(Dir, "pch");
  if (std::error_code EC = fs::create_directories(Dir))
    return fail(llvm::Twine("tidy: cannot create ") + Dir + ": " + EC.message());
  llvm::SmallString<256> Failed(Dir);
  llvm::sys::path::append(Failed, Plan.Key + ".failed");
  PchStore Store(makeAbsolute(CacheDir), Clang);
  PchStore::Built B;
  {
    llvm::SmallString<256> LockPath(Dir);
    llvm::sys::path::append(LockPath, Plan.Key + ".lock");
    FileLock Lock{std::string(LockPath)};
    if (fs::exists(Failed))
      return runTidy(*ClangTidy, Plain, Source, CacheDir);
    B = Store.get(Plan);
    if (!B.Ok) {
      // Remembered, so that the other compiles of the build do not try again.
      llvm::consumeError(writeFileAtomically(Failed, B.Error + "\n"));
      return runTidy(*ClangTidy, Plain, Source, CacheDir);
    }
  }
  std::vector<std::string> WithPch = {"--extra-arg=-include-pch", "--extra-arg=" + B.Pch};
  WithPch.insert(WithPch.end(), Plain.begin(), Plain.end());
  std::vector<std::string> Argv2 = {*ClangTidy};
  Argv2.insert(Argv2.end(), WithPch.begin(), WithPch.end());
  ProcessResult R = runProcess(*ClangTidy, Argv2);
  if (crashedProcess(R))
    return isolateTidyCrash(*ClangTidy, WithPch, std::move(R), Source, reportDir(CacheDir));
  if (R.Error.empty() && !reportsCompilerError(R.Output)) {
    llvm::outs() << R.Output;
    llvm::outs().flush();
    return R.ExitCode;
  }
  // Whatever went wrong, the plain parse decides. A header clang-tidy
  // rejected is deleted and remembered as failed for the rest of the build.
  if (llvm::StringRef(R.Output).contains("precompiled") || llvm::StringRef(R.Output).contains(".pch")) {
    llvm::SmallString<256> LockPath(Dir);
    llvm::sys::path::append(LockPath, Plan.Key + ".lock");
    FileLock Lock{std::string(LockPath)};
    Store.discard(Plan);
    llvm::consumeError(writeFileAtomically(Failed, "rejected by clang-tidy\n"));
  }
  return runTidy(*ClangTidy, Plain, Source, CacheDir);
}

} // namespace libtorch_tidy
