//===--- EmptyCacheInLoopCheck.h - libtorch-tidy ----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds CUDACachingAllocator::emptyCache() called on every iteration of a loop.
///
/// For the user-facing documentation see:
/// docs/checks/torch-empty-cache-in-loop.md
class EmptyCacheInLoopCheck : public ClangTidyCheck {
public:
  EmptyCacheInLoopCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_EMPTYCACHEINLOOPCHECK_H
