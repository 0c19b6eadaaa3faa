//===--- HookInLoopCheck.cpp - libtorch-tidy ------------------------------===//
//
// collect: the register_hook and remove_hook calls of a function (the calls
// its facts record, FunctionFacts::calls);
// decide: a register_hook that runs unconditionally on every iteration of a
// loop, on a tensor that outlives the iteration (a member, a parameter, a
// variable declared before the loop, or the loop variable of a loop over a
// module's parameters() nested in an outer loop), that the loop does not
// assign (a new tensor each iteration takes its hooks with it) and on which
// the loop calls no remove_hook;
// diagnose: the call, a note at the loop. No fix-it: where the hook belongs
// (before the loop, or removed at the end of the iteration) is the author's
// choice.
//
//===----------------------------------------------------------------------===//

#include "HookInLoopCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/ClangTidyCompat.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {
/// When \p V is the loop variable of the range-for \p Loop over a module's
/// parameters() (`for (auto &p : model->parameters())`), the loop around
/// \p Loop: the parameters outlive its iterations. Null otherwise.
const Stmt *parametersLoop(const ValueDecl *V, const Stmt *Loop, const ParentMap &PM,
                           const Stmt *Body) {
  const auto *For = dyn_cast<CXXForRangeStmt>(Loop);
  if (!For || For->getLoopVariable() != V)
    return nullptr;
  const Expr *Range = For->getRangeInit()->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Range))
    Range = Cleanups->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Range))
    Range = Temp->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(Range))
    Range = Bind->getSubExpr()->IgnoreParenImpCasts();
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Range);
  if (!Call || moduleMethodName(Call) != "parameters")
    return nullptr;
  return enclosingLoop(Loop, PM, Body);
}

/// True when \p S names a variable declared inside \p Loop (its init
/// statement, its condition or body) or assigned inside it (`++i`).
bool namesLoopVaryingVariable(const Stmt *S, const Stmt *Loop) {
  return anyStmt(S, [&](const Stmt *Node) {
    const auto *DRE = dyn_cast<DeclRefExpr>(Node);
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return V && (isAssignedWithin(V, Loop) ||
                 (V->isLocalVarDecl() && Loop->getSourceRange().fullyContains(V->getSourceRange())));
  });
}

/// When \p Obj picks an element by an index or iterator that changes on every
/// iteration of \p Loop (`params[i]`, `params.at(i)`, `*it`, `it->`), each iteration
/// hooks another tensor: the loop around \p Loop is the one that repeats (as
/// for a loop over parameters()), or there is none (null). \p Varies is set
/// when the element varies.
const Stmt *elementLoop(const Expr *Obj, const Stmt *Loop, const ParentMap &PM, const Stmt *Body,
                        bool &Varies) {
  Varies = false;
  Obj = Obj->IgnoreParenImpCasts();
  const Expr *Index = nullptr;
  if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(Obj))
    Index = Sub->getIdx();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Obj)) {
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      Index = Op->getArg(1);
    else if ((Op->getOperator() == OO_Star || Op->getOperator() == OO_Arrow) && Op->getNumArgs() == 1)
      Index = Op->getArg(0);
  } else if (const auto *UO = dyn_cast<UnaryOperator>(Obj); UO && UO->getOpcode() == UO_Deref)
    Index = UO->getSubExpr();
  else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Obj)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->getDeclName().isIdentifier() && MD->getName() == "at" && MC->getNumArgs() == 1)
      Index = MC->getArg(0);
  }
  if (!Index || !namesLoopVaryingVariable(Index, Loop))
    return nullptr;
  Varies = true;
  return enclosingLoop(Loop, PM, Body);
}
} // namespace

void HookInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed("register_hook"))
    return;
  // The register_hook and remove_hook calls, lambdas' included.
  llvm::SmallVector<const CXXMemberCallExpr *, 4> Registers, Removes;
  for (const CallSite &Site : Facts.calls())
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Site.E)) {
      if (isRegisterHookCall(Call))
        Registers.push_back(Call);
      else if (isRemoveHookCall(Call))
        Removes.push_back(Call);
    }
  if (Registers.empty())
    return;
  const ParentMap &PM = Facts.parents();
  const SourceManager &SM = Ctx.getSourceManager();

  for (const CXXMemberCallExpr *Call : Registers) {
    const Stmt *CodeBody = enclosingCodeBody(Call, PM, Body);
    const Stmt *Loop = enclosingLoop(Call, PM, CodeBody);
    if (!Loop)
      continue;
    const ValueDecl *Tensor = storageOf(Call->getImplicitObjectArgument());
    if (!Tensor)
      continue;
    // An element picked by the loop's index: another tensor each iteration.
    bool Varies = false;
    if (const Stmt *Outer = elementLoop(Call->getImplicitObjectArgument(), Loop, PM, CodeBody, Varies);
        Varies) {
      // The container itself must outlive the outer loop's iterations.
      if (!Outer || !outlivesIteration(Tensor, Outer, SM))
        continue;
      Loop = Outer;
    } else if (!outlivesIteration(Tensor, Loop, SM)) {
      Loop = parametersLoop(Tensor, Loop, PM, CodeBody);
      if (!Loop)
        continue;
    }
    // Registered once (under a condition), on a new tensor each iteration, or
    // removed again in the loop: no pile-up.
    if (isConditionalWithin(Call, Loop, PM) || isAssignedWithin(Tensor, Loop))
      continue;
    if (llvm::any_of(Removes, [&](const CXXMemberCallExpr *Remove) {
          return isDescendant(Remove, Loop, PM) &&
                 storageOf(Remove->getImplicitObjectArgument()) == Tensor;
        }))
      continue;
    diag(compat::beginLoc(Call),
         "hook registered on '%0' on every iteration of a loop and never removed: the hooks "
         "pile up on the tensor, each backward pass runs all of them, and what they capture "
         "stays alive")
        << Tensor->getName() << Call->getSourceRange();
    diag(compat::beginLoc(Loop),
         "the loop is here; register the hook once before it, or call 'remove_hook' with the "
         "handle in the same iteration",
         DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch_check
