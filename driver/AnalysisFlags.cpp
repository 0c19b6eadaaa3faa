//===--- AnalysisFlags.cpp ------------------------------------------------===//
#include "AnalysisFlags.h"
#include "AnalyzeCommand.h"
#include "GitDiff.h"
#include "LLVMCompat.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace libtorch_tidy {
namespace cl = llvm::cl;

cl::OptionCategory &driverCategory() {
  static cl::OptionCategory Category("libtorch-tidy options");
  return Category;
}

llvm::Expected<AnalysisOptions> AnalysisFlags::options(const std::string &Cwd) const {
  auto PluginPath = findPlugin(Plugin);
  if (!PluginPath)
    return PluginPath.takeError();
  auto Tidy = findClangTidy(ClangTidy);
  if (!Tidy)
    return Tidy.takeError();
  AnalysisOptions O;
  O.Cwd = Cwd;
  O.BuildDirs.assign(BuildDirs.begin(), BuildDirs.end());
  O.Paths.assign(Paths.begin(), Paths.end());
  O.Jobs = Jobs;
  O.All = All;
  O.Tidy.ClangTidy = *Tidy;
  O.Tidy.Plugin = *PluginPath;
  O.Tidy.Checks = Checks;
  O.Tidy.HeaderFilter = HeaderFilter;
  O.Tidy.ConfigFile = ConfigFile;
  O.Tidy.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  for (const std::string &Module : Load) {
    std::string Abs = makeAbsolute(Module);
    if (!llvm::sys::fs::is_regular_file(Abs))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "module '" + Module + "' (from --load) does not exist");
    O.Tidy.Loads.push_back(Abs);
  }
  O.Tidy.TimeoutSeconds = Timeout;
  O.UsePch = !NoPch;
  if (!PchFile.empty()) {
    if (!llvm::sys::fs::is_regular_file(PchFile))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--pch-file " + PchFile + ": no such file");
    O.PchFile = makeAbsolute(PchFile);
    O.UsePch = false; // the caller's header, not one built here
  }
  O.UseCache = !NoCache;
  O.CacheDir = CacheDir;
  O.CacheSize = CacheSize;
  O.Shard = Shard;
  if (Diff.getNumOccurrences())
    O.Diff = Diff;
  O.Progress = !Quiet && llvm::sys::Process::StandardErrIsDisplayed();
  return O;
}

/// `--diff REV` (with a space) is accepted when REV names a commit and no file.
static std::vector<std::string> normalizeDiffArgument(int Argc, const char **Argv) {
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

std::optional<std::string> parseDriverCommandLine(int Argc, const char **Argv, const char *Overview) {
  cl::HideUnrelatedOptions(driverCategory());
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "libtorch-tidy " << toolVersion() << " (for clang-tidy " << pluginLLVMMajor() << ")\n";
  });
  std::vector<std::string> Args = normalizeDiffArgument(Argc, Argv);
  std::vector<const char *> CArgs;
  for (const auto &A : Args)
    CArgs.push_back(A.c_str());
  std::string ParseErrors;
  llvm::raw_string_ostream ParseErrorStream(ParseErrors);
  if (compat::parseCommandLineWithDoubleDash(int(CArgs.size()), CArgs.data(), Overview, &ParseErrorStream))
    return std::nullopt;
  ParseErrorStream.flush();
  // "<prog>: Unknown command line argument '-x'.  Try: '<prog> --help'" -> one plain line.
  llvm::StringRef First = llvm::StringRef(ParseErrors).split('\n').first.trim();
  if (size_t Colon = First.find(": "); Colon != llvm::StringRef::npos)
    First = First.drop_front(Colon + 2);
  First = First.split("  Try:").first.trim().rtrim('.');
  std::string Line = First.str();
  if (!Line.empty())
    Line[0] = llvm::toLower(Line[0]);
  return Line + " (see --help)";
}

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

int fail(const llvm::Twine &Message) {
  llvm::errs() << "libtorch-tidy: error: " << Message << '\n';
  return ExitError;
}
int fail(llvm::Error E) { return fail(llvm::toString(std::move(E))); }

} // namespace libtorch_tidy
