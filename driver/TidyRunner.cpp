//===--- TidyRunner.cpp ---------------------------------------------------===//
#include "TidyRunner.h"
#include "Toolchain.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/YAMLTraits.h"
#include <chrono>
#include <csignal>
#include <optional>

namespace {
// The shape of clang-tidy's export (clang::tooling::TranslationUnitDiagnostics),
// spelled here so that the driver needs LLVM Support only.
struct YReplacement {
  std::string FilePath;
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string ReplacementText;
};
struct YMessage {
  std::string Message;
  std::string FilePath;
  unsigned FileOffset = 0;
  std::vector<YReplacement> Replacements;
};
struct YDiagnostic {
  std::string DiagnosticName;
  YMessage DiagnosticMessage;
  std::vector<YMessage> Notes;
  std::string Level;
  std::string BuildDirectory;
};
struct YTranslationUnit {
  std::string MainSourceFile;
  std::vector<YDiagnostic> Diagnostics;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(YReplacement)
LLVM_YAML_IS_SEQUENCE_VECTOR(YMessage)
LLVM_YAML_IS_SEQUENCE_VECTOR(YDiagnostic)

namespace llvm::yaml {
template <> struct MappingTraits<YReplacement> {
  static void mapping(IO &Io, YReplacement &R) {
    Io.mapOptional("FilePath", R.FilePath);
    Io.mapOptional("Offset", R.Offset);
    Io.mapOptional("Length", R.Length);
    Io.mapOptional("ReplacementText", R.ReplacementText);
  }
};
template <> struct MappingTraits<YMessage> {
  static void mapping(IO &Io, YMessage &M) {
    Io.mapOptional("Message", M.Message);
    Io.mapOptional("FilePath", M.FilePath);
    Io.mapOptional("FileOffset", M.FileOffset);
    Io.mapOptional("Replacements", M.Replacements);
  }
};
template <> struct MappingTraits<YDiagnostic> {
  static void mapping(IO &Io, YDiagnostic &D) {
    Io.mapOptional("DiagnosticName", D.DiagnosticName);
    Io.mapOptional("DiagnosticMessage", D.DiagnosticMessage);
    Io.mapOptional("Notes", D.Notes);
    Io.mapOptional("Level", D.Level);
    Io.mapOptional("BuildDirectory", D.BuildDirectory);
  }
};
template <> struct MappingTraits<YTranslationUnit> {
  static void mapping(IO &Io, YTranslationUnit &T) {
    Io.mapOptional("MainSourceFile", T.MainSourceFile);
    Io.mapOptional("Diagnostics", T.Diagnostics);
  }
};
} // namespace llvm::yaml

namespace libtorch_tidy {

static std::string absoluteIn(llvm::StringRef Path, llvm::StringRef Dir) {
  if (Path.empty())
    return {};
  llvm::SmallString<256> P(Path);
  if (!llvm::sys::path::is_absolute(P)) {
    P = Dir;
    llvm::sys::path::append(P, Path);
  }
  llvm::sys::path::remove_dots(P, true);
  return std::string(P);
}

llvm::Expected<std::vector<Finding>> parseExportedFixes(llvm::StringRef Yaml) {
  YTranslationUnit TU;
  // Unknown keys (Ranges, and whatever later versions add) are skipped quietly.
  llvm::yaml::Input In(Yaml, nullptr, [](const llvm::SMDiagnostic &, void *) {});
  In.setAllowUnknownKeys(true);
  In >> TU;
  if (In.error())
    return llvm::createStringError(In.error(), "cannot read clang-tidy's exported diagnostics");
  std::vector<Finding> Result;
  for (const YDiagnostic &D : TU.Diagnostics) {
    Finding F;
    F.Check = D.DiagnosticName;
    F.Level = llvm::StringRef(D.Level).lower();
    if (F.Level != "error")
      F.Level = F.Level == "remark" ? "note" : "warning";
    F.Message = D.DiagnosticMessage.Message;
    F.Loc.File = absoluteIn(D.DiagnosticMessage.FilePath, D.BuildDirectory);
    F.Loc.Offset = D.DiagnosticMessage.FileOffset;
    for (const YReplacement &R : D.DiagnosticMessage.Replacements)
      F.Fix.push_back({absoluteIn(R.FilePath, D.BuildDirectory), R.Offset, R.Length, R.ReplacementText});
    for (const YMessage &N : D.Notes) {
      Note Out;
      Out.Message = N.Message;
      Out.Loc.File = absoluteIn(N.FilePath, D.BuildDirectory);
      Out.Loc.Offset = N.FileOffset;
      F.Notes.push_back(std::move(Out));
    }
    Result.push_back(std::move(F));
  }
  return Result;
}

std::string checksFor(const TidyOptions &Options, llvm::StringRef File) {
  if (!Options.Checks.empty())
    return Options.Checks;
  if (!Options.ConfigFile.empty())
    return {};
  // The nearest .clang-tidy that sets Checks, walking up from the file.
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(File); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, ".clang-tidy");
    auto Buf = llvm::MemoryBuffer::getFile(P);
    if (!Buf)
      continue;
    llvm::StringRef Text = (*Buf)->getBuffer();
    while (!Text.empty()) {
      llvm::StringRef Line;
      std::tie(Line, Text) = Text.split('\n');
      if (Line.starts_with("Checks:"))
        return {};
    }
    if (Dir == llvm::sys::path::root_path(Dir))
      break;
  }
  return "-*,torch-*";
}

/// True when the nearest .clang-tidy above \p File that sets \p Key exists.
static bool configSets(llvm::StringRef File, llvm::StringRef Key) {
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(File); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, ".clang-tidy");
    if (auto Buf = llvm::MemoryBuffer::getFile(P)) {
      llvm::StringRef Text = (*Buf)->getBuffer();
      while (!Text.empty()) {
        llvm::StringRef Line;
        std::tie(Line, Text) = Text.split('\n');
        if (Line.starts_with(Key) && Line.drop_front(Key.size()).starts_with(":"))
          return true;
      }
    }
    if (Dir == llvm::sys::path::root_path(Dir))
      break;
  }
  return false;
}

/// --header-filter for \p File: the option's, else none when a .clang-tidy
/// (or --config-file) sets HeaderFilterRegex, else the empty filter (no
/// header), which clang-tidy 19 defaults to and clang-tidy 21+ no longer does
/// (their default is '.*'): the same findings with either version.
static std::optional<std::string> headerFilterFor(const TidyOptions &Options, llvm::StringRef File) {
  if (!Options.HeaderFilter.empty())
    return Options.HeaderFilter;
  if (!Options.ConfigFile.empty() || configSets(File, "HeaderFilterRegex"))
    return std::nullopt;
  return std::string();
}

/// The arguments that decide which checks run and how they are configured:
/// the modules, the compile database, the checks, the header filter, the
/// configuration file. A run and its --list-checks share them.
static std::vector<std::string> configurationArguments(const TidyOptions &Options, llvm::StringRef File,
                                                       const TidyRunExtras &Extras) {
  std::vector<std::string> Args = {"--load=" + Options.Plugin};
  for (const std::string &Module : Options.Loads)
    Args.push_back("--load=" + Module);
  if (!Extras.CompileFlags)
    Args.push_back("-p=" + Options.BuildDir);
  std::string Checks = checksFor(Options, File);
  // Later globs win: these turn checks off whatever enabled them.
  for (const std::string &Off : Options.DisabledChecks)
    Checks += (Checks.empty() ? "-" : ",-") + Off;
  if (!Extras.ScopeModule.empty()) {
    // --checks is added to the configuration's Checks, so this enables the
    // module's check in every case; it narrows nothing unless the checks are
    // all torch- checks.
    Args.push_back("--load=" + Extras.ScopeModule);
    Checks += Checks.empty() ? UserScopeCheck : std::string(",") + UserScopeCheck;
  }
  if (!Checks.empty())
    Args.push_back("--checks=" + Checks);
  if (auto HeaderFilter = headerFilterFor(Options, File))
    Args.push_back("--header-filter=" + *HeaderFilter);
  if (!Options.ConfigFile.empty())
    Args.push_back("--config-file=" + Options.ConfigFile);
  return Args;
}

bool isCrashSignal(int Signal) {
  return llvm::is_contained({SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE, SIGTRAP}, Signal);
}

bool crashed(const TidyResult &R) { return !R.TimedOut && !R.Interrupted && isCrashSignal(R.Signal); }

/// Ends a clang-tidy command line with the unit's own compile flags (when
/// it has no compile database) and says how to run it: where, for how long,
/// where its temporary files go.
static ProcessOptions finishCommand(std::vector<std::string> &Args, const TidyOptions &Options,
                                    const TidyRunExtras &Extras, unsigned TimeoutSeconds) {
  ProcessOptions Run;
  Run.TimeoutSeconds = TimeoutSeconds;
  Run.OutputDir = Options.TempDir;
  if (Extras.CompileFlags) {
    Args.push_back("--");
    Args.insert(Args.end(), Extras.CompileFlags->begin(), Extras.CompileFlags->end());
    Run.Directory = Extras.Directory;
  }
  return Run;
}

llvm::Expected<std::vector<std::string>> enabledChecks(const TidyOptions &Options, llvm::StringRef File,
                                                       const TidyRunExtras &Extras) {
  std::vector<std::string> Args = {Options.ClangTidy};
  llvm::append_range(Args, configurationArguments(Options, File, Extras));
  Args.push_back("--list-checks");
  Args.push_back(File.str());
  ProcessOptions Run = finishCommand(Args, Options, Extras, 120);
  ProcessResult P = runProcess(Options.ClangTidy, Args, Run);
  if (!P.Error.empty() || P.ExitCode != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "clang-tidy --list-checks failed: " +
                                       (P.Error.empty() ? "exit " + std::to_string(P.ExitCode) : P.Error));
  // "Enabled checks:", then one indented name a line, then an empty line.
  std::vector<std::string> Checks;
  llvm::StringRef Out = P.Output;
  bool InList = false;
  while (!Out.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Out) = Out.split('\n');
    if (Line.trim() == "Enabled checks:") {
      InList = true;
      continue;
    }
    if (!InList)
      continue;
    if (Line.trim().empty() || !Line.starts_with(" "))
      break;
    if (Line.trim() != UserScopeCheck)
      Checks.push_back(Line.trim().str());
  }
  return Checks;
}

TidyResult runClangTidy(const TidyOptions &Options, llvm::StringRef File,
                        const TidyRunExtras &Extras) {
  auto Start = std::chrono::steady_clock::now();
  TidyResult Result;
  llvm::SmallString<128> Yaml;
  if (std::error_code EC = createTempFileIn(Options.TempDir, "libtorch-tidy-fixes", "yaml", Yaml)) {
    Result.Failed = true;
    Result.Error = "cannot create a temporary file: " + EC.message();
    return Result;
  }
  llvm::sys::fs::remove(Yaml); // clang-tidy writes it only when it has diagnostics
  std::vector<std::string> Args = {Options.ClangTidy};
  llvm::append_range(Args, configurationArguments(Options, File, Extras));
  Args.insert(Args.end(), {"--export-fixes=" + Yaml.str().str(), "--quiet", "--use-color=false"});
  llvm::SmallString<128> SummariesOut;
  if (!Options.Summaries.empty() || Options.WriteSummaries) {
    // The options go in --config, which still reads every .clang-tidy above
    // the file (InheritParentConfig); planAnalysis refuses
    // --config-file with them.
    auto Quote = [](llvm::StringRef S) {
      std::string Q = "'";
      for (char C : S)
        Q += C == '\'' ? std::string("''") : std::string(1, C);
      return Q + "'";
    };
    std::string Config = "{InheritParentConfig: true, CheckOptions: {";
    if (!Options.Summaries.empty())
      Config += "TorchSummaries: " + Quote(Options.Summaries);
    if (Options.WriteSummaries) {
      if (std::error_code EC =
              createTempFileIn(Options.TempDir, "libtorch-tidy-summaries", "json", SummariesOut)) {
        Result.Failed = true;
        Result.Error = "cannot create a temporary file: " + EC.message();
        return Result;
      }
      llvm::sys::fs::remove(SummariesOut);
      if (!Options.Summaries.empty())
        Config += ", ";
      Config += "TorchSummariesOutput: " + Quote(SummariesOut);
    }
    Args.push_back("--config=" + Config + "}}");
  }
  if (!Options.VfsOverlay.empty())
    Args.push_back("--vfsoverlay=" + Options.VfsOverlay);
  for (const auto &A : Options.ExtraArgs)
    Args.push_back("--extra-arg=" + A);
  if (!Extras.Pch.empty()) {
    Args.push_back("--extra-arg=-include-pch");
    Args.push_back("--extra-arg=" + Extras.Pch);
  }
  llvm::SmallString<128> IncludeList;
  if (Extras.ListIncludes) {
    // -H lists each header the preprocessor enters; the file gets the paths
    // (tooling strips -MD/-MF, so a dependency file is not an option).
    if (!llvm::sys::fs::createTemporaryFile("libtorch-tidy-includes", "txt", IncludeList)) {
      for (const std::string &A : {std::string("-H"), std::string("-Xclang"),
                                   std::string("-header-include-file"), std::string("-Xclang"),
                                   std::string(IncludeList)})
        Args.push_back("--extra-arg=" + A);
    }
  }
  Args.push_back(File.str());
  ProcessOptions Run = finishCommand(Args, Options, Extras, Options.TimeoutSeconds);
  ProcessResult P = runProcess(Options.ClangTidy, Args, Run);
  Result.TimedOut = P.TimedOut;
  Result.Interrupted = P.Interrupted;
  Result.Signal = P.Signal;
  if (crashed(Result)) { // kept for the crash report
    Result.Command = Args;
    Result.Output = P.Output;
  }
  Result.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  if (!IncludeList.empty()) {
    if (auto Buf = llvm::MemoryBuffer::getFile(IncludeList)) {
      llvm::StringRef Text = (*Buf)->getBuffer();
      llvm::StringSet<> Seen;
      while (!Text.empty()) {
        llvm::StringRef Line;
        std::tie(Line, Text) = Text.split('\n');
        Line = Line.ltrim('.').trim();
        if (Line.empty())
          continue;
        if (Seen.insert(Line).second)
          Result.Includes.push_back(Line.str());
      }
    }
    llvm::sys::fs::remove(IncludeList);
  }
  if (auto Buf = llvm::MemoryBuffer::getFile(Yaml)) {
    Result.ExportedFixes = (*Buf)->getBuffer().str();
    auto Parsed = parseExportedFixes((*Buf)->getBuffer());
    if (Parsed)
      Result.Findings = std::move(*Parsed);
    else {
      Result.Failed = true;
      Result.Error = llvm::toString(Parsed.takeError());
    }
  }
  llvm::sys::fs::remove(Yaml);
  if (!SummariesOut.empty()) {
    if (auto Buf = llvm::MemoryBuffer::getFile(SummariesOut))
      Result.Summaries = (*Buf)->getBuffer().str();
    llvm::sys::fs::remove(SummariesOut);
  }
  bool CompileError = false;
  for (const Finding &F : Result.Findings)
    CompileError |= F.isCompilerError();
  if (!P.Error.empty()) {
    Result.Failed = true;
    Result.Error = P.Error;
  } else if (P.ExitCode != 0 && !CompileError &&
             llvm::StringRef(P.Output).contains("no checks enabled")) {
    // The configuration enables no check for this file: nothing to report.
  } else if (P.ExitCode != 0 && !CompileError) {
    // No diagnostics explain the failure: report clang-tidy's first error line.
    Result.Failed = true;
    llvm::StringRef Out = P.Output, First;
    while (!Out.empty()) {
      llvm::StringRef Line;
      std::tie(Line, Out) = Out.split('\n');
      // (The header list of -H starts its lines with dots.)
      if (Line.contains("error") && !Line.starts_with(".")) {
        First = Line.trim();
        break;
      }
    }
    Result.Error = First.empty() ? "clang-tidy exited with " + std::to_string(P.ExitCode)
                                 : First.str();
  } else if (CompileError) {
    Result.Failed = true;
    Result.Error = "does not compile";
  } else if (Options.WriteSummaries && Options.RequireSummaries && Result.Summaries.empty()) {
    Result.Failed = true;
    Result.Error = "clang-tidy wrote no summaries (no torch- check ran)";
  }
  return Result;
}

} // namespace libtorch_tidy
