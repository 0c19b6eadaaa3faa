//===--- GitDiff.cpp ------------------------------------------------------===//
#include "GitDiff.h"
#include "Toolchain.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

namespace libtorch_tidy {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

bool ChangedLines::contains(llvm::StringRef File, unsigned Line) const {
  auto It = Files.find(File);
  if (It == Files.end())
    return false;
  for (const auto &[First, Last] : It->second)
    if (Line >= First && Line <= Last)
      return true;
  return false;
}

static std::string gitPath() {
  auto Git = llvm::sys::findProgramByName("git");
  return Git ? *Git : std::string();
}

static ProcessResult git(std::vector<std::string> Args) {
  std::string Git = gitPath();
  Args.insert(Args.begin(), "git");
  if (Git.empty()) {
    ProcessResult R;
    R.Error = "git not found on PATH";
    return R;
  }
  return runProcess(Git, Args);
}

bool isGitRevision(llvm::StringRef Rev) {
  ProcessResult R = git({"rev-parse", "--verify", "--quiet", Rev.str() + "^{commit}"});
  return R.Error.empty() && R.ExitCode == 0;
}

ChangedLines parseUnifiedDiff(llvm::StringRef Diff, llvm::StringRef TopLevel) {
  ChangedLines Result;
  llvm::Regex Hunk("^@@ -[0-9]+(,[0-9]+)? \\+([0-9]+)(,([0-9]+))? @@");
  std::string Current;
  while (!Diff.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Diff) = Diff.split('\n');
    if (Line.starts_with("+++ ")) {
      llvm::StringRef Name = Line.drop_front(4).rtrim("\r\t ");
      if (Name == "/dev/null") {
        Current.clear();
        continue;
      }
      Name.consume_front("b/");
      llvm::SmallString<256> P(TopLevel);
      llvm::sys::path::append(P, Name);
      llvm::sys::path::native(P);
      Current = std::string(P);
      continue;
    }
    llvm::SmallVector<llvm::StringRef, 5> M;
    if (!Current.empty() && Hunk.match(Line, &M)) {
      unsigned Start = 0, Count = 1;
      M[2].getAsInteger(10, Start);
      if (!M[4].empty())
        M[4].getAsInteger(10, Count);
      auto &Ranges = Result.Files[Current]; // a pure deletion touches the file too
      if (Count == 0)
        continue; // ... but adds no line
      Ranges.push_back({Start, Start + Count - 1});
    }
  }
  return Result;
}

std::optional<std::string> fileAtRevision(const ChangedLines &Changed, llvm::StringRef File) {
  llvm::StringRef Rel = File;
  if (!Rel.consume_front(Changed.TopLevel) || !Rel.consume_front("/"))
    return std::nullopt;
  ProcessResult R = git({"-C", Changed.TopLevel, "cat-file", "blob", Changed.Revision + ":" + Rel.str()});
  if (!R.Error.empty() || R.ExitCode != 0)
    return std::nullopt;
  return R.Output;
}

llvm::Expected<ChangedLines> changedLinesSince(llvm::StringRef Rev) {
  ProcessResult Top = git({"rev-parse", "--show-toplevel"});
  if (!Top.Error.empty())
    return createStringError(inconvertibleErrorCode(), "--diff: %s", Top.Error.c_str());
  if (Top.ExitCode != 0)
    return createStringError(inconvertibleErrorCode(),
                             "--diff: the current directory is not in a git repository");
  std::string TopLevel = llvm::StringRef(Top.Output).trim().str();

  std::string Base = Rev.str();
  if (Base.empty()) {
    ProcessResult MergeBase = git({"merge-base", "HEAD", "@{upstream}"});
    Base = MergeBase.ExitCode == 0 ? llvm::StringRef(MergeBase.Output).trim().str() : "HEAD";
  }
  if (!isGitRevision(Base))
    return createStringError(inconvertibleErrorCode(), "--diff: '%s' is not a commit of this repository",
                             Base.c_str());
  ProcessResult Diff = git({"-C", TopLevel, "diff", "-U0", "--no-color", "--no-ext-diff",
                            "--no-renames", Base, "--"});
  if (Diff.ExitCode != 0)
    return createStringError(inconvertibleErrorCode(), "--diff: git diff %s failed", Base.c_str());
  ChangedLines Result = parseUnifiedDiff(Diff.Output, TopLevel);
  Result.Revision = Base;
  Result.TopLevel = TopLevel;
  return Result;
}

} // namespace libtorch_tidy
