//===--- UnneededRetainGraphCheck.h - libtorch-tidy -------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H
#define LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"

namespace clang::tidy::torch_check {

/// Finds backward passes with retain_graph=true whose graph no later backward
/// pass can reach.
///
/// For the user-facing documentation see:
/// docs/checks/torch-unneeded-retain-graph.md
class UnneededRetainGraphCheck : public ClangTidyCheck {
public:
  UnneededRetainGraphCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UNNEEDEDRETAINGRAPHCHECK_H
