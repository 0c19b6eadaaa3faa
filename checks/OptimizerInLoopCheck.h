//===--- OptimizerInLoopCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds optimizers constructed inside the loop that steps them.
///
/// For the user-facing documentation see:
/// docs/checks/torch-optimizer-in-loop.md
class OptimizerInLoopCheck : public ClangTidyCheck {
public:
  OptimizerInLoopCheck(StringRef Name, ClangTidyContext *Context) : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_OPTIMIZERINLOOPCHECK_H
