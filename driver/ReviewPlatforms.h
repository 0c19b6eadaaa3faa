//===--- ReviewPlatforms.h - Posting a review: GitHub, GitLab --------------===//
//
// A Review (Review.h) posted where the reviewer reads it: one GitHub
// pull-request review (new comments in one request, created whole or not at
// all; the summary edited in place on later pushes), or GitLab merge-request
// discussions (one request each; a retry finds those already posted by their
// markers) and one summary note. A run lists its earlier comments first: a
// finding already commented on the same lines is edited in place, one whose
// lines moved is posted anew and the earlier comment resolved as moved, one
// that is gone is resolved when the run's builds reach its file.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_REVIEWPLATFORMS_H
#define LIBTORCH_TIDY_DRIVER_REVIEWPLATFORMS_H

#include "Review.h"
#include "llvm/Support/Error.h"
#include <string>

namespace libtorch_tidy {

/// The API token from \p Var (default GITHUB_TOKEN or GITLAB_TOKEN); an
/// error line when it is not set.
llvm::Expected<std::string> tokenFor(const Review &R, const std::string &Var);

/// Posts \p R with the token of \p TokenVar; the exit status: ExitApi when
/// the platform refused or was unreachable, else the analysis's (R.Exit).
int post(const Review &R, const std::string &TokenVar, bool Quiet);

} // namespace libtorch_tidy

#endif
