//===--- GitDiff.h - Lines changed since a revision -----------------------===//
//
// `git diff -U0 REV` parsed the way clang-tidy-diff does: the added or changed
// line ranges of each file in the working tree. The default REV is the merge
// base of HEAD with its upstream branch, or HEAD when there is no upstream
// (the uncommitted work).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_GITDIFF_H
#define LIBTORCH_TIDY_DRIVER_GITDIFF_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace libtorch_tidy {

struct ChangedLines {
  std::string Revision; // what the diff was taken against
  std::string TopLevel; // the repository's top directory
  /// Absolute path -> inclusive [first, last] line ranges in the new file
  /// (none for a file whose lines were only deleted).
  llvm::StringMap<std::vector<std::pair<unsigned, unsigned>>> Files;
  bool contains(llvm::StringRef File, unsigned Line) const;
};

/// True when Rev names a commit in the repository around the current directory.
bool isGitRevision(llvm::StringRef Rev);

/// Rev empty: the default described above.
llvm::Expected<ChangedLines> changedLinesSince(llvm::StringRef Rev);

/// The text of File (absolute, under TopLevel) at Changed.Revision; none when
/// the file did not exist there.
std::optional<std::string> fileAtRevision(const ChangedLines &Changed, llvm::StringRef File);

/// Parses `git diff -U0` output; paths are relative to TopLevel.
ChangedLines parseUnifiedDiff(llvm::StringRef Diff, llvm::StringRef TopLevel);

} // namespace libtorch_tidy

#endif
