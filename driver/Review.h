//===--- Review.h - A change's findings as a code review -------------------===//
//
// The review a change gets: one inline comment per finding on a changed line
// (warning, notes, a link to the check's page, the fix-it as a suggestion
// when it touches only changed lines), the other findings and those over the
// cap in the body, and the hidden markers that let a later run find its
// earlier comments. ReviewCommand.cpp builds it from the analysis and writes
// it (--write-review); ReviewPlatforms.h posts it.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_REVIEW_H
#define LIBTORCH_TIDY_DRIVER_REVIEW_H

#include "AnalyzeCommand.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct ChangedLines;
struct FindingsModel;

/// The summary's marker names the builds it speaks for: in a repository
/// with one build per sub-project, each build's review keeps its own summary.
std::string summaryMarker(llvm::StringRef Builds);
/// The body of a GitHub review that only carries new comments (the summary
/// is the earlier review's, edited).
std::string commentsMarker(llvm::StringRef Builds);

/// A comment's hidden marker: the finding's fingerprint and its anchor (a
/// hash of the numbers and the text of the lines the comment is on at the
/// commit it was posted on).
std::string marker(llvm::StringRef Key, llvm::StringRef Anchor, bool Resolved = false);

struct Marker {
  std::string Key, Anchor; // Anchor empty: written by an earlier version
  bool Resolved = false;
};
std::optional<Marker> markerOf(llvm::StringRef Body);

/// The anchor of a comment on lines [First, Last] of \p Text.
std::string anchorOf(llvm::StringRef Text, unsigned First, unsigned Last);

struct Comment {
  std::string Key;  // the finding's fingerprint
  std::string Anchor; // the text of the lines it is on (anchorOf)
  std::string Path; // relative to the repository, '/' separators
  int Line = 0;
  int StartLine = 0; // GitHub: first line of a multi-line comment (0: one line)
  std::string Body;
};

struct Review {
  std::string Platform; // github | gitlab
  std::string Api, Repo;
  int Number = 0;
  std::string Commit; // head
  std::string Body;
  std::vector<Comment> Comments;
  int Exit = ExitClean; // the analysis's
  // The builds analysed (their directories relative to the repository), the
  // summary's identity.
  std::string Builds;
  // The files the analysis spoke for (relative to the repository): only an
  // earlier comment on one of them may be resolved. None: every file (a
  // review file of an earlier version).
  std::optional<std::vector<std::string>> Scope;
  bool inScope(llvm::StringRef Path) const { return !Scope || llvm::is_contained(*Scope, Path); }
};

/// The review as --write-review writes it and --post-review reads it.
llvm::json::Value toJson(const Review &R);
bool fromJSON(const llvm::json::Value &V, Comment &C, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, Review &R, llvm::json::Path P);

/// \p File relative to \p Root ('/' separators), as comments name files.
std::string relativeTo(llvm::StringRef File, llvm::StringRef Root);
/// \p Path with its symbolic links resolved (absolute when it does not exist).
std::string canonicalPath(llvm::StringRef Path);

/// The review of the findings of \p M that \p Changed (the diff) shows:
/// inline comments up to \p Cap, the rest in the body; \p Builds names it.
Review buildReview(const std::string &Platform, const FindingsModel &M, const ChangedLines &Changed,
                   unsigned Cap, const std::string &Builds);

} // namespace libtorch_tidy

#endif
