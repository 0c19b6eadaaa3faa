//===--- MisplacedZeroGradCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds zero_grad() calls between backward() and step().
///
/// For the user-facing documentation see:
/// docs/checks/torch-misplaced-zero-grad.md
class MisplacedZeroGradCheck : public ClangTidyCheck {
public:
  MisplacedZeroGradCheck(StringRef Name, ClangTidyContext *Context) : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_MISPLACEDZEROGRADCHECK_H
