//===--- FunctionDispatch.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// One pass over the user's functions for every torch- check on the analysis
// core: for each function, each check in turn.
//
// Design: each check on the core registers a matcher on the translation unit
// only (clang-tidy then calls its onStartOfTranslationUnit /
// onEndOfTranslationUnit) and enrolls with the dispatch (CoreCheck's
// registerMatchers); the dispatch registers one matcher of its own per
// MatchFinder and, when it fires, calls every enrolled check's
// checkFunction for each user function with a body, in function order:
// on a file with thousands of functions a body is analysed by every check
// while it is in the cache, where check order would meet every body cold
// once per check.
//
// clang-tidy's per-check profile (--enable-check-profile) then shows the
// checks' work on the functions on one line, `torch-checks`, and each check's
// own line holds its end of the translation unit (where most findings are
// emitted); the total is the same.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONDISPATCH_H
#define LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONDISPATCH_H

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

class AnalysisCore;
class CoreCheck;

class FunctionDispatch : public ast_matchers::MatchFinder::MatchCallback {
public:
  explicit FunctionDispatch(AnalysisCore &Core) : Core(Core) {}

  /// \p Check wants its checkFunction called with each user function of the
  /// translation units \p Finder matches (registered once per finder).
  void enroll(ast_matchers::MatchFinder *Finder, CoreCheck *Check);
  /// \p Check is going away (its destructor).
  void withdraw(CoreCheck *Check);

  void run(const ast_matchers::MatchFinder::MatchResult &Result) override;
  llvm::StringRef getID() const override { return "torch-checks"; }

private:
  AnalysisCore &Core;
  ast_matchers::MatchFinder *Finder = nullptr;
  llvm::SmallVector<CoreCheck *, 24> Checks;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONDISPATCH_H
