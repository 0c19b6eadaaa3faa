//===--- ReviewCommand.h - `libtorch-tidy review` -------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_REVIEWCOMMAND_H
#define LIBTORCH_TIDY_DRIVER_REVIEWCOMMAND_H

namespace libtorch_tidy {

/// Analyses a change (as --diff) and posts the findings as a pull-request
/// review (GitHub) or merge-request discussions (GitLab). Argv[0] is
/// "libtorch-tidy review".
int runReviewCommand(int Argc, const char **Argv);

} // namespace libtorch_tidy

#endif
