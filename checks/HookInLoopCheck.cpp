//===--- HookInLoopCheck.cpp - libtorch-tidy ------------------------------===//
//
// collect: the register_hook and remove_hook calls of a function;
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

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral FunctionId = "fn";

namespace {
class HookCollector : public RecursiveASTVisitor<HookCollector> {
public:
  llvm::SmallVector<const CXXMemberCallExpr *, 4> Registers;
  llvm::SmallVector<const CXXMemberCallExpr *, 4> Removes;
  bool shouldVisitLambdaBodies() const { return true; }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *Call) {
    if (isRegisterHookCall(Call))
      Registers.push_back(Call);
    else if (isRemoveHookCall(Call))
      Removes.push_back(Call);
    return true;
  }
};

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
} // namespace

void HookInLoopCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::userFunctionDefinitions(FunctionId), this);
}

void HookInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body)
    return;
  HookCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(Body));
  if (Collector.Registers.empty())
    return;
  ParentMap PM(const_cast<Stmt *>(Body));
  const SourceManager &SM = *Result.SourceManager;

  for (const CXXMemberCallExpr *Call : Collector.Registers) {
    const Stmt *CodeBody = enclosingCodeBody(Call, PM, Body);
    const Stmt *Loop = enclosingLoop(Call, PM, CodeBody);
    if (!Loop)
      continue;
    const ValueDecl *Tensor = storageOf(Call->getImplicitObjectArgument());
    if (!Tensor)
      continue;
    if (!outlivesIteration(Tensor, Loop, SM)) {
      Loop = parametersLoop(Tensor, Loop, PM, CodeBody);
      if (!Loop)
        continue;
    }
    // Registered once (under a condition), on a new tensor each iteration, or
    // removed again in the loop: no pile-up.
    if (isConditionalWithin(Call, Loop, PM) || isAssignedWithin(Tensor, Loop))
      continue;
    if (llvm::any_of(Collector.Removes, [&](const CXXMemberCallExpr *Remove) {
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
