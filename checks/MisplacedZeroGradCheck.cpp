//===--- MisplacedZeroGradCheck.cpp - libtorch-tidy -----------------------===//

#include "MisplacedZeroGradCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"
#include "utils/Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

/// The nearest backward/step/other event, skipping other zeroing calls.
static const TrainingEvent *nearest(llvm::ArrayRef<const TrainingEvent *> Events) {
  for (const TrainingEvent *E : Events)
    if (!E->zeroes())
      return E;
  return nullptr;
}

/// True when \p Init names \p D, directly or through the initialisers of the
/// local variables it names (`auto params = model->parameters();
/// torch::optim::SGD opt(params, ...)`). The recursion follows at most three
/// initialisers (\p Hops).
static bool initRefersTo(const Stmt *Init, const ValueDecl *D, unsigned Hops = 0) {
  if (Hops > 3)
    return false;
  return anyStmt(Init, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
      if (DRE->getDecl() == D)
        return true;
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      return VD && VD->isLocalVarDecl() && initRefersTo(VD->getInit(), D, Hops + 1);
    }
    const auto *ME = dyn_cast<MemberExpr>(S);
    return ME && ME->getMemberDecl() == D;
  });
}

/// Whether zeroing \p Zero can clear gradients that \p Step uses. Unknown
/// pairings are trusted only when a single optimizer is stepped
/// (\p Optimizers distinct ones).
static bool sameParameters(const TrainingEvent &Zero, const TrainingEvent &Step,
                           size_t Optimizers) {
  // Through a helper: only when both calls name the same optimizer (or the
  // optimizer is built from the module) in this body.
  if (Zero.Inner || Step.Inner) {
    if (!Zero.ObjectDecl || !Step.ObjectDecl)
      return false;
    if (Zero.K == TrainingEvent::ZeroGrad)
      return Zero.ObjectDecl == Step.ObjectDecl;
    const auto *Opt = dyn_cast<VarDecl>(Step.ObjectDecl);
    return Opt && Opt->getInit() && initRefersTo(Opt->getInit(), Zero.ObjectDecl);
  }
  if (Zero.K == TrainingEvent::ZeroGrad) {
    if (Zero.ObjectDecl && Step.ObjectDecl)
      return Zero.ObjectDecl == Step.ObjectDecl;
    return Optimizers == 1;
  }
  // module->zero_grad(): does the optimizer hold this module's parameters?
  if (const auto *Opt = dyn_cast_or_null<VarDecl>(Step.ObjectDecl))
    if (const Expr *Init = Opt->getInit(); Init && Zero.ObjectDecl)
      return initRefersTo(Init, Zero.ObjectDecl);
  return Optimizers == 1;
}

/// True when every node between \p S and \p Top runs whenever \p Top does and
/// lies outside any lambda: expressions (not a `?:` branch or a `&&`/`||`
/// operand), declarations, returns and bare blocks.
static bool straightWithin(const Stmt *S, const Stmt *Top, const ParentMap &PM) {
  if (S == Top)
    return true;
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P; Child = P, P = PM.getParent(P)) {
    if (isa<LambdaExpr, AbstractConditionalOperator>(P))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P); BO && BO->isLogicalOp() &&
                                                       Child != BO->getLHS())
      return false;
    if (!isa<Expr, DeclStmt, ReturnStmt, CompoundStmt>(P))
      return false;
    if (P == Top)
      return true;
  }
  return Child == Top;
}

/// The lambda whose body is \p Block, or null.
static const LambdaExpr *lambdaOfBody(const Stmt *Block, const ParentMap &PM) {
  const auto *L = dyn_cast_or_null<LambdaExpr>(PM.getParent(Block));
  return L && L->getBody() == Block ? L : nullptr;
}

/// The value \p E is, through conversions to std::function and temporaries.
static const Expr *through(const Expr *E) {
  for (;;) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1) {
      E = CE->getArg(0);
      continue;
    }
    return E;
  }
}

void MisplacedZeroGradCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const TrainingLoopAnalysis &Analysis =
      core().trainingLoops(FD, Ctx, CallDepth);
  if (!Analysis.hasParents())
    return;
  const ParentMap &PM = Analysis.parents();

  auto Report = [&](const TrainingEvent &Zero, const TrainingEvent &Backward,
                    const TrainingEvent &Step) {
    const CallExpr *ZeroCall = Zero.Inner ? Zero.Inner : Zero.Call;
    if (!Reported.insert(ZeroCall).second)
      return;
    diag(ZeroCall->getExprLoc(),
         "'zero_grad()' between 'backward()' and 'step()' clears the gradients the step "
         "needs: the optimizer updates with zero gradients and the backward pass is wasted");
    diag((Backward.Inner ? Backward.Inner : Backward.Call)->getExprLoc(),
         "gradients computed here", DiagnosticIDs::Note);
    diag((Step.Inner ? Step.Inner : Step.Call)->getExprLoc(),
         "the optimizer steps here; zero the gradients before the forward pass or after "
         "this step",
         DiagnosticIDs::Note);
    // The helpers on the way, as called in the loop.
    llvm::SmallPtrSet<const CallExpr *, 4> Noted;
    for (const TrainingEvent *E : {&Backward, &Zero, &Step})
      if (E->Inner && Noted.insert(E->Call).second)
        diag(compat::beginLoc(E->Call), "'%0' is called in the training loop here",
             DiagnosticIDs::Note)
            << E->Call->getDirectCallee()->getNameAsString();
  };

  llvm::SmallPtrSet<const CallExpr *, 4> InLoops; // judged by their training loop
  for (const TrainingLoop &Loop : Analysis.loops())
    for (const TrainingEvent &Zero : Loop.Events) {
      if ((Zero.K != TrainingEvent::ZeroGrad && Zero.K != TrainingEvent::ModuleZeroGrad) ||
          Zero.InLambda)
        continue;
      InLoops.insert(Zero.Call);
      const TrainingEvent *Before =
          nearest(Analysis.straightLineNeighbours(Zero, Loop, /*Forward=*/false));
      const TrainingEvent *After =
          nearest(Analysis.straightLineNeighbours(Zero, Loop, /*Forward=*/true));
      if (!Before || !After || Before->K != TrainingEvent::Backward ||
          After->K != TrainingEvent::Step ||
          !sameParameters(Zero, *After, Loop.OptimizerSteps.size()))
        continue;
      Report(Zero, *Before, *After);
    }

  // Outside training loops: a step function (`train_step()` does backward,
  // zero_grad, step), a lambda, or an optimizer closure (`opt.step([&] {
  // loss.backward(); opt.zero_grad(); return loss; })`), judged within the
  // block that holds the zeroing call.
  llvm::ArrayRef<TrainingEvent> Events = Analysis.events();
  llvm::SmallVector<const ValueDecl *, 2> Stepped;
  size_t Optimizers = 0;
  for (const TrainingEvent &E : Events)
    if (E.K == TrainingEvent::Step) {
      if (!E.ObjectDecl)
        ++Optimizers;
      else if (!llvm::is_contained(Stepped, E.ObjectDecl)) {
        Stepped.push_back(E.ObjectDecl);
        ++Optimizers;
      }
    }
  for (const TrainingEvent &Zero : Events) {
    if ((Zero.K != TrainingEvent::ZeroGrad && Zero.K != TrainingEvent::ModuleZeroGrad) ||
        InLoops.contains(Zero.Call))
      continue;
    // The statement of a block that holds the call, on a straight path.
    const Stmt *Child = Zero.Call;
    const Stmt *Parent = PM.getParent(Child);
    while (Parent && !isa<CompoundStmt>(Parent)) {
      if (!isa<Expr>(Parent) || isa<LambdaExpr, AbstractConditionalOperator>(Parent))
        break;
      Child = Parent;
      Parent = PM.getParent(Parent);
    }
    const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent);
    if (!Block || !straightWithin(Zero.Call, Child, PM))
      continue;
    llvm::SmallVector<const Stmt *, 16> Siblings(Block->body_begin(), Block->body_end());
    auto *It = llvm::find(Siblings, Child);
    if (It == Siblings.end())
      continue;
    // The nearest non-zeroing event of a sibling statement; Unknown when a
    // sibling holds an event off the straight path.
    bool Unknown = false;
    auto EventIn = [&](const Stmt *S, bool Last) -> const TrainingEvent * {
      const TrainingEvent *Found = nullptr;
      for (const TrainingEvent &E : Events) {
        if (&E == &Zero || !isDescendant(E.Call, S, PM))
          continue;
        if (!straightWithin(E.Call, S, PM)) {
          Unknown = true;
          return nullptr;
        }
        if (E.zeroes())
          continue;
        if (!Found || Last)
          Found = &E;
      }
      return Found;
    };
    const TrainingEvent *Before = nullptr;
    for (auto *S = It; S != Siblings.begin() && !Before && !Unknown;)
      Before = EventIn(*--S, /*Last=*/true);
    if (!Before || Unknown || Before->K != TrainingEvent::Backward)
      continue;
    const TrainingEvent *After = nullptr;
    for (auto *S = std::next(It); S != Siblings.end() && !After && !Unknown; ++S)
      After = EventIn(*S, /*Last=*/false);
    if (Unknown)
      continue;
    if (!After) {
      // The end of an optimizer closure: the step runs when it returns.
      const LambdaExpr *Closure = lambdaOfBody(Block, PM);
      if (!Closure)
        continue;
      const VarDecl *Holder = nullptr;
      for (const Stmt *P = PM.getParent(Closure); P; P = PM.getParent(P)) {
        if (const auto *DS = dyn_cast<DeclStmt>(P)) {
          if (DS->isSingleDecl())
            if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
                VD && VD->getInit() && through(VD->getInit()) == Closure)
              Holder = VD;
          break;
        }
        if (!isa<Expr>(P) || isa<CallExpr>(P))
          break;
      }
      for (const TrainingEvent &E : Events) {
        if (E.K != TrainingEvent::Step)
          continue;
        for (const Expr *Arg : E.Call->arguments()) {
          const Expr *A = through(Arg);
          const auto *DRE = dyn_cast<DeclRefExpr>(A);
          if (A == Closure || (Holder && DRE && DRE->getDecl() == Holder))
            After = &E;
        }
        if (After)
          break;
      }
    }
    if (!After || After->K != TrainingEvent::Step || !sameParameters(Zero, *After, Optimizers))
      continue;
    Report(Zero, *Before, *After);
  }
}

} // namespace clang::tidy::torch_check
