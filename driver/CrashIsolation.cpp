//===--- CrashIsolation.cpp -----------------------------------------------===//
#include "CrashIsolation.h"
#include "Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace libtorch_tidy {

namespace {

std::string shellQuote(llvm::StringRef S) {
  if (!S.empty() && S.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                        "-_=+./:,@%") == llvm::StringRef::npos)
    return S.str();
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

} // namespace

std::string writeCrashReport(llvm::StringRef Dir, llvm::StringRef File, llvm::StringRef Check,
                             const TidyResult &Run, const TidyRunExtras &Extras) {
  std::string ReportDir = Dir.str();
  if (!ReportDir.empty() && llvm::sys::fs::create_directories(ReportDir))
    ReportDir.clear();
  llvm::SmallString<256> Path;
  std::string Stem = llvm::sys::path::stem(File).str();
  if (createTempFileIn(ReportDir, "crash-" + Stem, "txt", Path))
    return "";
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (EC)
    return "";
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  OS << "libtorch-tidy crash report\n"
     << "file: " << File << "\n"
     << "check: " << (Check.empty() ? "none (clang-tidy crashed with none of the file's checks enabled)" : Check)
     << "\n"
     << "signal: " << Run.Error << "\n"
     << "directory: " << (Extras.Directory.empty() ? Cwd.str() : llvm::StringRef(Extras.Directory)) << "\n"
     << "command:\n  "
     << llvm::join(llvm::map_range(Run.Command, [](const std::string &A) { return shellQuote(A); }), " ")
     << "\n\nclang-tidy's output:\n";
  // Without the header list of -H (lines of dots and a path): the results
  // cache's, not the crash's.
  llvm::StringRef Out = Run.Output;
  while (!Out.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Out) = Out.split('\n');
    if (!Line.starts_with(". ") && !Line.starts_with(".."))
      OS << Line << "\n";
  }
  return std::string(Path);
}

namespace {

/// The runs of one unit with parts of its checks.
class UnitRuns {
public:
  UnitRuns(const TidyOptions &Options, llvm::StringRef File, const TidyRunExtras &Extras,
           std::vector<std::string> Checks)
      : Options(Options), File(File), Extras(Extras), Checks(std::move(Checks)) {}

  /// A run with only \p Enabled of the unit's checks on.
  TidyResult runWith(llvm::ArrayRef<std::string> Enabled) const {
    TidyOptions O = Options;
    for (const std::string &C : Checks)
      if (!llvm::is_contained(Enabled, C))
        O.DisabledChecks.push_back(C);
    return runClangTidy(O, File, Extras);
  }

  /// A run with none of the unit's checks: the parse alone. clang-tidy
  /// refuses to run without a check, so the driver's scope module's stays
  /// on (it diagnoses nothing); without that module the probe says nothing.
  std::optional<TidyResult> probe() const {
    TidyRunExtras X = Extras;
    if (X.ScopeModule.empty()) {
      llvm::SmallString<256> Scope(llvm::sys::path::parent_path(Options.Plugin));
      llvm::sys::path::append(Scope, "LibTorchTidyScope.so");
      if (!llvm::sys::fs::exists(Scope))
        return std::nullopt;
      X.ScopeModule = std::string(Scope);
    }
    TidyOptions O = Options;
    llvm::append_range(O.DisabledChecks, Checks);
    return runClangTidy(O, File, X);
  }

private:
  const TidyOptions &Options;
  std::string File;
  const TidyRunExtras &Extras;
  std::vector<std::string> Checks;
};

/// The unit is not analysed: \p Run's crash, \p Why, and its report.
TidyResult notAnalysed(TidyResult Run, const llvm::Twine &Why, llvm::StringRef ReportDir,
                       llvm::StringRef File, const TidyRunExtras &Extras) {
  Run.Failed = true;
  Run.CrashReport = writeCrashReport(ReportDir, File, "", Run, Extras);
  Run.Error = (Run.Error + " " + Why).str();
  Run.Findings.clear();
  return Run;
}

} // namespace

TidyResult isolateCrashes(const TidyOptions &Options, llvm::StringRef File, const TidyRunExtras &Extras,
                          TidyResult Crashed, llvm::StringRef ReportDir) {
  auto Listed = enabledChecks(Options, File, Extras);
  if (!Listed)
    return notAnalysed(std::move(Crashed), "(no check to blame: " + llvm::toString(Listed.takeError()) + ")",
                       ReportDir, File, Extras);
  std::vector<std::string> Rest;
  for (std::string &C : *Listed)
    if (!llvm::is_contained(Options.DisabledChecks, C))
      Rest.push_back(std::move(C));
  UnitRuns Runs(Options, File, Extras, Rest);

  if (std::optional<TidyResult> Probe = Runs.probe(); Probe && crashed(*Probe))
    return notAnalysed(std::move(*Probe), "with none of its checks enabled: clang-tidy itself crashed",
                       ReportDir, File, Extras);

  CrashSearch<TidyResult> S = searchCrashingChecks(
      Rest, std::move(Crashed), [&](llvm::ArrayRef<std::string> Enabled) { return Runs.runWith(Enabled); },
      [](const TidyResult &R) { return crashed(R); }, [](const TidyResult &R) { return R.Interrupted; });
  if (S.Interrupted)
    return std::move(S.Last);
  std::vector<CheckCrash> Crashes;
  for (auto &F : S.Crashing)
    Crashes.push_back({F.Check, F.Smallest.Error, writeCrashReport(ReportDir, File, F.Check, F.Smallest, Extras)});
  if (S.Ended) {
    S.Last.Crashes = std::move(Crashes);
    return std::move(S.Last);
  }
  std::string Blamed = llvm::join(llvm::map_range(Crashes, [](const CheckCrash &C) { return C.Check; }), ", ");
  if (Crashes.size() == Rest.size())
    return notAnalysed(std::move(S.Last), "with each of its checks off in turn (" + Blamed + ")",
                       ReportDir, File, Extras);
  return notAnalysed(std::move(S.Last),
                     "without " + Blamed + " too: given up after " + std::to_string(MaxCrashingChecks) +
                         " crashing checks",
                     ReportDir, File, Extras);
}

} // namespace libtorch_tidy
