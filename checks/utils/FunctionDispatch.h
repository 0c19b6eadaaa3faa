//===--- FunctionDispatch.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// One pass over the user's functions for every torch- check on the analysis
// core: for each function, each check in turn.
//
// Design: a check's matcher used to bind each user function (Matchers.h), so
// clang-tidy called every check on every function, one check after the other.
// On a file with thousands of functions each check then met every function
// body cold (another check had walked the rest of the AST since), and each
// paid the matcher's bound-nodes copies per function. Now each check on the
// core registers a matcher on the translation unit only (clang-tidy then
// calls its onStartOfTranslationUnit / onEndOfTranslationUnit as before) and
// enrolls with the dispatch; the dispatch registers one matcher of its own
// per MatchFinder and, when it fires, calls every enrolled check's check()
// for each user function, with the function bound as "fn": the same calls,
// in function order instead of check order.
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

class FunctionDispatch : public ast_matchers::MatchFinder::MatchCallback {
public:
  /// The node id every check reads its function from.
  static constexpr llvm::StringLiteral FunctionId = "fn";

  explicit FunctionDispatch(AnalysisCore &Core) : Core(Core) {}

  /// \p Check wants check() called with each user function of the
  /// translation units \p Finder matches (registered once per finder).
  void enroll(ast_matchers::MatchFinder *Finder, ast_matchers::MatchFinder::MatchCallback *Check);
  /// \p Check is going away (its destructor).
  void withdraw(ast_matchers::MatchFinder::MatchCallback *Check);

  void run(const ast_matchers::MatchFinder::MatchResult &Result) override;
  llvm::StringRef getID() const override { return "torch-checks"; }

private:
  AnalysisCore &Core;
  ast_matchers::MatchFinder *Finder = nullptr;
  llvm::SmallVector<ast_matchers::MatchFinder::MatchCallback *, 24> Checks;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FUNCTIONDISPATCH_H
