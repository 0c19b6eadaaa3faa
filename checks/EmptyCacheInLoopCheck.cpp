//===--- EmptyCacheInLoopCheck.cpp - libtorch-tidy ------------------------===//

#include "EmptyCacheInLoopCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral FunctionId = "fn";

namespace {
class EmptyCacheCollector : public RecursiveASTVisitor<EmptyCacheCollector> {
public:
  llvm::SmallVector<const CallExpr *, 4> Calls;
  bool VisitCallExpr(CallExpr *Call) {
    if (isEmptyCacheCall(Call))
      Calls.push_back(Call);
    return true;
  }
};
} // namespace

void EmptyCacheInLoopCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::userFunctionDefinitions(FunctionId), this);
}

void EmptyCacheInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body)
    return;
  EmptyCacheCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(Body));
  if (Collector.Calls.empty())
    return;
  ParentMap PM(const_cast<Stmt *>(Body));
  const SourceManager &SM = *Result.SourceManager;

  for (const CallExpr *Call : Collector.Calls) {
    const Stmt *Loop = enclosingLoop(Call, PM, Body);
    if (!Loop)
      continue;
    // Once per iteration of an epoch loop (a loop whose body holds another
    // loop) costs little; under a condition (every N steps, after an
    // out-of-memory error) it is deliberate.
    if (containsLoop(loopBody(Loop)) || isConditionalWithin(Call, Loop, PM))
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
