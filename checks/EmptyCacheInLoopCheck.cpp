//===--- EmptyCacheInLoopCheck.cpp - libtorch-tidy ------------------------===//

#include "EmptyCacheInLoopCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/ExecutionOrder.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

void EmptyCacheInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.has(Fact::EmptyCache))
    return;
  const ParentMap &PM = Facts.parents();
  const SourceManager &SM = Ctx.getSourceManager();

  for (const Fact *F : Facts.of(Fact::EmptyCache)) {
    const auto *Call = cast<CallExpr>(F->S);
    const Stmt *Loop = enclosingLoop(Call, PM, Body);
    if (!Loop)
      continue;
    // Once per iteration of an epoch loop (a loop whose body holds another
    // loop) costs little; under a condition (every N steps, after an
    // out-of-memory error) it is deliberate.
    if (containsLoop(loopBody(Loop)))
      continue;
    // Under a condition (an if, a catch handler), or skipped on some
    // iterations by a `continue` or an early exit (execution order from the
    // CFG of the code body holding both, a lambda's included; a call in a
    // lambda inside the loop has no order with it and is judged by the
    // statements around it).
    const ExecutionOrder &Order = Facts.order();
    if (isConditionalWithin(Call, Loop, PM) ||
        (Order.canOrder(Call, Loop) && !Order.runsEveryIteration(Call, Loop)))
      continue;
    SourceLocation Loc = compat::beginLoc(Call);
    diag(Loc, "'emptyCache' on every iteration of a loop gives no memory back to PyTorch: it "
              "synchronises the device and returns cached blocks to the driver, so the next "
              "iteration pays for slow 'cudaMalloc' calls again")
        << Call->getSourceRange();
    diag(compat::beginLoc(Loop), "the loop is here", DiagnosticIDs::Note);
    const Stmt *Statement = asBlockStatement(Call, PM);
    CharSourceRange Removal =
        Statement ? statementRemovalRange(Statement, SM, getLangOpts()) : CharSourceRange();
    if (Removal.isValid())
      diag(Loc, "remove the call: the allocator hands its cached blocks to the next iteration",
           DiagnosticIDs::Note)
          << FixItHint::CreateRemoval(Removal);
  }
}

} // namespace clang::tidy::torch_check
