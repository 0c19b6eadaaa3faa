//===--- FunctionDispatch.cpp - libtorch-tidy -----------------------------===//

#include "FunctionDispatch.h"
#include "AnalysisCore.h"

namespace clang::tidy::torch_check {

using namespace ast_matchers;

void FunctionDispatch::enroll(MatchFinder *NewFinder, MatchFinder::MatchCallback *Check) {
  if (NewFinder != Finder) {
    // A new set of checks (clang-tidy builds one per translation unit).
    Finder = NewFinder;
    Checks.clear();
    Finder->addMatcher(translationUnitDecl(), this);
  }
  Checks.push_back(Check);
}

void FunctionDispatch::withdraw(MatchFinder::MatchCallback *Check) {
  llvm::erase(Checks, Check);
  if (Checks.empty())
    Finder = nullptr; // the next finder, even at the same address, is new
}

namespace {
/// Calls each check with one bound set of nodes.
class CallEach : public internal::BoundNodesTreeBuilder::Visitor {
public:
  CallEach(llvm::ArrayRef<MatchFinder::MatchCallback *> Checks, ASTContext *Ctx)
      : Checks(Checks), Ctx(Ctx) {}
  void visitMatch(const BoundNodes &Nodes) override {
    MatchFinder::MatchResult Result(Nodes, Ctx);
    for (MatchFinder::MatchCallback *Check : Checks)
      Check->run(Result);
  }

private:
  llvm::ArrayRef<MatchFinder::MatchCallback *> Checks;
  ASTContext *Ctx;
};
} // namespace

void FunctionDispatch::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  // A copy: a check's questions may not change the list, but the core's
  // list is its own to rebuild.
  std::vector<const FunctionDecl *> Functions(Core.userFunctions(Ctx).begin(),
                                               Core.userFunctions(Ctx).end());
  const llvm::SmallVector<MatchFinder::MatchCallback *, 24> Each(Checks.begin(), Checks.end());
  CallEach Visitor(Each, &Ctx);
  for (const FunctionDecl *FD : Functions) {
    internal::BoundNodesTreeBuilder Builder;
    Builder.setBinding(FunctionId, DynTypedNode::create(*FD));
    Builder.visitMatches(&Visitor);
  }
}

} // namespace clang::tidy::torch_check
