//===--- FunctionDispatch.cpp - libtorch-tidy -----------------------------===//

#include "FunctionDispatch.h"
#include "AnalysisCore.h"
#include "CoreCheck.h"

namespace clang::tidy::torch_check {

using namespace ast_matchers;

void FunctionDispatch::enroll(MatchFinder *NewFinder, CoreCheck *Check) {
  if (NewFinder != Finder) {
    // A new set of checks (clang-tidy builds one per translation unit).
    Finder = NewFinder;
    Checks.clear();
    Finder->addMatcher(translationUnitDecl(), this);
  }
  Checks.push_back(Check);
}

void FunctionDispatch::withdraw(CoreCheck *Check) {
  llvm::erase(Checks, Check);
  if (Checks.empty())
    Finder = nullptr; // the next finder, even at the same address, is new
}

void FunctionDispatch::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  // Copies: a check's questions may not change the list of checks, but the
  // core's list of functions is its own to rebuild.
  std::vector<const FunctionDecl *> Functions(Core.userFunctions(Ctx).begin(),
                                               Core.userFunctions(Ctx).end());
  const llvm::SmallVector<CoreCheck *, 24> Each(Checks.begin(), Checks.end());
  for (const FunctionDecl *FD : Functions)
    if (const Stmt *Body = FD->getBody())
      for (CoreCheck *Check : Each)
        Check->checkFunction(FD, Body, Ctx);
}

} // namespace clang::tidy::torch_check
