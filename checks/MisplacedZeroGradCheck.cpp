//===--- MisplacedZeroGradCheck.cpp - libtorch-tidy -----------------------===//

#include "MisplacedZeroGradCheck.h"
#include "utils/Matchers.h"
#include "utils/TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral FunctionId = "fn";

void MisplacedZeroGradCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::userFunctionDefinitions(FunctionId), this);
}

/// The nearest backward/step/other event, skipping other zeroing calls.
static const TrainingEvent *nearest(llvm::ArrayRef<const TrainingEvent *> Events) {
  for (const TrainingEvent *E : Events)
    if (!E->zeroes())
      return E;
  return nullptr;
}

/// Whether zeroing \p Zero can clear gradients that \p Step uses. Unknown
/// pairings are trusted only when the loop steps a single optimizer.
static bool sameParameters(const TrainingEvent &Zero, const TrainingEvent &Step,
                           const TrainingLoop &Loop) {
  // Through a helper: only when both calls name the same optimizer (or the
  // optimizer is built from the module) in this body.
  if (Zero.Inner || Step.Inner) {
    if (!Zero.ObjectDecl || !Step.ObjectDecl)
      return false;
    if (Zero.K == TrainingEvent::ZeroGrad)
      return Zero.ObjectDecl == Step.ObjectDecl;
    const auto *Opt = dyn_cast<VarDecl>(Step.ObjectDecl);
    return Opt && Opt->getInit() && refersTo(Opt->getInit(), Zero.ObjectDecl);
  }
  if (Zero.K == TrainingEvent::ZeroGrad) {
    if (Zero.ObjectDecl && Step.ObjectDecl)
      return Zero.ObjectDecl == Step.ObjectDecl;
    return Loop.OptimizerSteps.size() == 1;
  }
  // module->zero_grad(): does the optimizer hold this module's parameters?
  if (const auto *Opt = dyn_cast_or_null<VarDecl>(Step.ObjectDecl))
    if (const Expr *Init = Opt->getInit(); Init && Zero.ObjectDecl)
      return refersTo(Init, Zero.ObjectDecl);
  return Loop.OptimizerSteps.size() == 1;
}

void MisplacedZeroGradCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body)
    return;
  TrainingLoopAnalysis Analysis(Body, *Result.Context, CallDepth);

  for (const TrainingLoop &Loop : Analysis.loops())
    for (const TrainingEvent &Zero : Loop.Events) {
      if ((Zero.K != TrainingEvent::ZeroGrad && Zero.K != TrainingEvent::ModuleZeroGrad) ||
          Zero.InLambda)
        continue;
      const TrainingEvent *Before =
          nearest(Analysis.straightLineNeighbours(Zero, Loop, /*Forward=*/false));
      const TrainingEvent *After =
          nearest(Analysis.straightLineNeighbours(Zero, Loop, /*Forward=*/true));
      if (!Before || !After || Before->K != TrainingEvent::Backward ||
          After->K != TrainingEvent::Step || !sameParameters(Zero, *After, Loop))
        continue;
      const CallExpr *ZeroCall = Zero.Inner ? Zero.Inner : Zero.Call;
      if (!Reported.insert(ZeroCall).second)
        continue;
      diag(ZeroCall->getExprLoc(),
           "'zero_grad()' between 'backward()' and 'step()' clears the gradients the step "
           "needs: the optimizer updates with zero gradients and the backward pass is wasted");
      diag((Before->Inner ? Before->Inner : Before->Call)->getExprLoc(), "gradients computed here",
           DiagnosticIDs::Note);
      diag((After->Inner ? After->Inner : After->Call)->getExprLoc(),
           "the optimizer steps here; zero the gradients before the forward pass or after "
           "this step",
           DiagnosticIDs::Note);
      // The helpers on the way, as called in the loop.
      llvm::SmallPtrSet<const CallExpr *, 4> Noted;
      for (const TrainingEvent *E : {Before, &Zero, After})
        if (E->Inner && Noted.insert(E->Call).second)
          diag(E->Call->getBeginLoc(), "'%0' is called in the training loop here",
               DiagnosticIDs::Note)
              << E->Call->getDirectCallee()->getNameAsString();
    }
}

} // namespace clang::tidy::torch_check
