//===--- OptimizerInLoopCheck.cpp - libtorch-tidy -------------------------===//

#include "OptimizerInLoopCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"
#include "utils/Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

/// The variable a construction initialises or is assigned to.
static const ValueDecl *constructedVariable(const Expr *E, const ParentMap &PM) {
  const Stmt *Child = E;
  for (const Stmt *P = PM.getParent(E); P; Child = P, P = PM.getParent(P)) {
    if (const auto *DS = dyn_cast<DeclStmt>(P)) {
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (VD->getInit() && isDescendant(E, VD->getInit(), PM))
            return VD;
      // ParentMap does not see through the init: match by range.
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (VD->getInit() && VD->getInit()->getSourceRange().fullyContains(E->getSourceRange()))
            return VD;
      return nullptr;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Child == Op->getArg(1))
      return namedDecl(Op->getArg(0));
    if (const auto *BO = dyn_cast<BinaryOperator>(P);
        BO && BO->getOpcode() == BO_Assign && Child == BO->getRHS())
      return namedDecl(BO->getLHS());
    if (!isa<Expr>(P))
      return nullptr;
    // Arguments of another call (emplace_back, a container): not a variable.
    if (isa<CallExpr>(P) && !isa<CXXOperatorCallExpr>(P))
      return nullptr;
  }
  return nullptr;
}

/// The arguments of an optimizer construction: the parameters, then the
/// options.
static llvm::ArrayRef<const Expr *> constructionArgs(const Expr *Construction) {
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Construction))
    return llvm::ArrayRef(CE->getArgs(), CE->getNumArgs());
  if (const auto *Call = dyn_cast<CallExpr>(Construction))
    return llvm::ArrayRef(Call->getArgs(), Call->getNumArgs());
  return {};
}

/// The construction builds its parameters fresh in \p Loop: its parameters
/// argument names a variable declared or assigned there, or calls a user
/// function; or \p Loop is a range-for over the values its options take (a
/// sweep over learning rates). Options computed in an epoch loop (a learning
/// rate decayed by epoch) do not count: the model is the same.
static bool buildsItsModelInLoop(const Expr *Construction, const Stmt *Loop,
                                 const ParentMap &PM, const ASTContext &Ctx) {
  llvm::ArrayRef<const Expr *> Args = constructionArgs(Construction);
  if (Args.empty())
    return true;
  if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop))
    for (const Expr *Option : Args.drop_front())
      if (refersTo(Option, RF->getLoopVariable()))
        return true;
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceRange LoopRange(compat::beginLoc(Loop), Loop->getEndLoc());
  auto DeclaredInLoop = [&](const Decl *D) {
    return withinExpansion(D->getLocation(), LoopRange, SM);
  };
  llvm::SmallVector<const ValueDecl *, 4> Named;
  if (anyStmt(Args.front(), [&](const Stmt *S) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
          if (isa<VarDecl>(DRE->getDecl())) {
            if (DeclaredInLoop(DRE->getDecl()))
              return true;
            Named.push_back(DRE->getDecl());
          }
        }
        if (const auto *ME = dyn_cast<MemberExpr>(S); ME && isa<FieldDecl>(ME->getMemberDecl()))
          Named.push_back(ME->getMemberDecl());
        if (const auto *Call = dyn_cast<CallExpr>(S))
          if (const FunctionDecl *FD = Call->getDirectCallee();
              FD && !isInLibraryNamespace(FD) && !SM.isInSystemHeader(FD->getLocation()) &&
              !isa<CXXOperatorCallExpr>(Call))
            return true;
        return isa<CXXNewExpr>(S);
      }))
    return true;
  // A variable the loop assigns (`model = Net(cfg);`, `model = std::make_shared<...>()`).
  return anyStmt(Loop, [&](const Stmt *S) {
    const ValueDecl *Assigned = nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      Assigned = namedDecl(Op->getArg(0));
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->getOpcode() == BO_Assign)
      Assigned = namedDecl(BO->getLHS());
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
        MC && MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
        (MC->getMethodDecl()->getName() == "reset" ||
         MC->getMethodDecl()->getName() == "reset_parameters"))
      Assigned = namedDecl(memberCallObject(MC));
    return Assigned && llvm::is_contained(Named, Assigned);
  });
}

void OptimizerInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const TrainingLoopAnalysis &Analysis =
      core().trainingLoops(FD, Ctx, 0);
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (Analysis.empty() || !Facts.constructsOptimizer())
    return;
  const ParentMap &PM = Analysis.parents();

  // The constructions of optimizers (`torch::optim::Adam opt(...)`,
  // `std::make_unique<torch::optim::Adam>(...)`, `new torch::optim::SGD(...)`),
  // lambdas' included.
  for (const CallSite &Site : Facts.calls()) {
    if (!isOptimizerConstruction(Site.E))
      continue;
    const Expr *Construction = Site.E;
    if (!PM.hasParent(Construction))
      continue;
    const Stmt *Loop = enclosingLoop(Construction, PM, Body);
    if (!Loop)
      continue;
    const ValueDecl *Var = constructedVariable(Construction, PM);
    if (!Var)
      continue;
    // A step of this optimizer in the same loop.
    const TrainingEvent *Step = nullptr;
    for (const TrainingEvent &E : Analysis.events())
      if (E.K == TrainingEvent::Step && E.ObjectDecl == Var && isDescendant(E.Call, Loop, PM) &&
          !isInLambdaBelow(E.Call, Loop, PM)) {
        Step = &E;
        break;
      }
    if (!Step)
      continue;
    const TrainingLoop *Training = Analysis.trainingLoopOf(Step->Call);
    if (!Training || buildsItsModelInLoop(Construction, Loop, PM, Ctx))
      continue;
    bool PerEpoch = Training->Loop != Loop;
    diag(compat::beginLoc(Construction),
         PerEpoch ? "optimizer constructed inside the epoch loop: its state (momentum, Adam "
                    "moments, step counts) is thrown away and reallocated every epoch"
                  : "optimizer constructed inside the training loop: its state (momentum, Adam "
                    "moments, step counts) is thrown away and reallocated every iteration")
        << Construction->getSourceRange();
    diag(Step->Call->getExprLoc(), "the optimizer steps here", DiagnosticIDs::Note);
    diag(compat::beginLoc(Loop), "construct the optimizer once, before this loop",
         DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch_check
