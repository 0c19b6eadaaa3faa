//===--- SummaryLocation.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// Where an editor finds the linked summaries of a project (docs/editors.md).
// LLVM Support only: the driver, which writes the file, compiles it too.
//
// Design:
//   - The command writes the linked summaries of every `--cross-tu` run and
//     every `summarize` into the build's cache directory under one stable
//     name as well (BUILD/.libtorch-tidy-cache/summaries.json, beside its
//     content-addressed copy), so the build's latest summaries are always at
//     the same place.
//   - libtorch-tidy-clangd turns locating on for its process: a check whose
//     options name no TorchSummaries file reads that file of the build of
//     the file being analysed, the build found as clangd finds its
//     compile_commands.json (the file's directory and its parents, each
//     with its build/). clang-tidy and the command never locate: there the
//     option alone decides, so a finding never depends on a file nobody
//     named.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYLOCATION_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYLOCATION_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::torch_check {

/// The name of the build's latest linked summaries in its cache directory.
inline constexpr llvm::StringLiteral LatestSummariesName = "summaries.json";
/// The cache directory's name beside compile_commands.json (the command's
/// default; $LIBTORCH_TIDY_CACHE_DIR overrides it there and here).
inline constexpr llvm::StringLiteral CacheDirName = ".libtorch-tidy-cache";

/// Turns locating on for this process (libtorch-tidy-clangd's main).
void locateSummariesBesideCompileDatabase();
/// When locating is on, the latest linked summaries of the build that holds
/// \p File, when that file exists; "" otherwise.
std::string locatedSummaries(llvm::StringRef File);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYLOCATION_H
