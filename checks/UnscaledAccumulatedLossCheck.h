//===--- UnscaledAccumulatedLossCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H
#define LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds gradient accumulation whose loss is not divided by the accumulation period.
///
/// For the user-facing documentation see:
/// docs/checks/torch-unscaled-accumulated-loss.md
class UnscaledAccumulatedLossCheck : public ClangTidyCheck {
public:
  UnscaledAccumulatedLossCheck(StringRef Name, ClangTidyContext *Context) : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UNSCALEDACCUMULATEDLOSSCHECK_H
