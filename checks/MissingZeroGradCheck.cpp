//===--- MissingZeroGradCheck.cpp - libtorch-tidy -------------------------===//

#include "MissingZeroGradCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/Matchers.h"
#include "utils/TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include <algorithm>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

/// Every name in \p E is declared before \p Before and \p E has no calls but
/// `->`, `*` and `[]` operators: it can be spelled again at \p Before.
static bool isRespellable(const Stmt *E, SourceLocation Before, const SourceManager &SM) {
  // Every node must pass; an explicit stack, pre-order (the operands of an
  // overloaded operator, the children of anything else).
  llvm::SmallVector<const Stmt *, 16> Work{E};
  while (!Work.empty()) {
    E = Work.pop_back_val();
    if (!E)
      return false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      SourceLocation DeclLoc = DRE->getDecl()->getLocation();
      if (!DeclLoc.isValid() || !expandedBefore(DeclLoc, Before, SM))
        return false;
      continue;
    }
    size_t First = Work.size();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() != OO_Arrow && Op->getOperator() != OO_Star &&
          Op->getOperator() != OO_Subscript)
        return false;
      for (unsigned I = 0; I < Op->getNumArgs(); ++I)
        Work.push_back(Op->getArg(I));
    } else {
      if (!isa<MemberExpr, CXXThisExpr, ImplicitCastExpr, ParenExpr, UnaryOperator,
               ArraySubscriptExpr, IntegerLiteral, MaterializeTemporaryExpr>(E))
        return false;
      if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() != UO_Deref)
        return false;
      for (const Stmt *Child : E->children())
        Work.push_back(Child);
    }
    std::reverse(Work.begin() + First, Work.end());
  }
  return true;
}

void MissingZeroGradCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const TrainingLoopAnalysis &Analysis =
      core().trainingLoops(FD, Ctx, CallDepth, /*Linked=*/true);

  for (const TrainingLoop &Loop : Analysis.loops()) {
    if (!Loop.hasEvent(TrainingEvent::Backward) || Loop.zeroesGradients() ||
        Loop.hasEvent(TrainingEvent::OpaqueOptimizerUse))
      continue;
    const TrainingEvent *Backward = nullptr;
    bool Opaque = false;
    for (const TrainingEvent &E : Loop.Events) {
      if (E.K == TrainingEvent::Backward && !Backward)
        Backward = &E;
      if (E.K == TrainingEvent::Step && stepHasOpaqueClosure(E))
        Opaque = true;
    }
    if (Opaque || Loop.OptimizerSteps.empty())
      continue;

    // The fix-it: `<optimizer>.zero_grad();` for each optimizer, first in the
    // loop body. When the step runs in a helper, in the helper's body before
    // its backward pass, only when the helper runs both (else zeroing there
    // would clear the gradients of a backward pass run before the call).
    std::string FixText;
    SourceLocation FixLoc;
    const Stmt *FixBody = Loop.Body;
    const FunctionDecl *StepHelper = nullptr;
    bool HelperBlocksFix = false;
    // A step or backward pass in a helper defined in another file: the fix
    // belongs there (no fix-it here).
    const TrainingEvent *LinkedStep = nullptr;
    for (const TrainingEvent *Step : Loop.OptimizerSteps)
      if (Step->Linked && !LinkedStep)
        LinkedStep = Step;
    if (Backward->Linked && !LinkedStep)
      LinkedStep = Backward;
    for (const TrainingEvent *Step : Loop.OptimizerSteps)
      if (Step->Inner) {
        StepHelper = Step->Via;
        bool Together = Loop.OptimizerSteps.size() == 1 && Backward->Inner &&
                        Backward->Via == Step->Via && Backward->Call == Step->Call;
        if (Together)
          FixBody = Step->Via->getBody();
        else
          HelperBlocksFix = true;
      }
    const auto *Block = dyn_cast_or_null<CompoundStmt>(FixBody);
    if (!LinkedStep && !HelperBlocksFix && Block && !Block->body_empty() &&
        Block->body_front()->getBeginLoc().isFileID()) {
      FixLoc = Block->body_front()->getBeginLoc();
      std::string Separator = "\n" + indentationAt(FixLoc, SM);
      if (Block->getLBracLoc().isMacroID() ||
          SM.getSpellingLineNumber(Block->getLBracLoc()) == SM.getSpellingLineNumber(FixLoc))
        Separator = " ";
      for (const TrainingEvent *Step : Loop.OptimizerSteps) {
        const CallExpr *StepCall = Step->Inner ? Step->Inner : Step->Call;
        const auto *ME = dyn_cast<MemberExpr>(StepCall->getCallee()->IgnoreParens());
        if (!ME || compat::beginLoc(ME).isMacroID() || ME->getMemberLoc().isMacroID() ||
            ME->isImplicitAccess() || !isRespellable(ME->getBase(), compat::beginLoc(FixBody), SM)) {
          FixText.clear();
          break;
        }
        llvm::StringRef Prefix = Lexer::getSourceText(
            CharSourceRange::getCharRange(compat::beginLoc(ME), ME->getMemberLoc()), SM,
            Ctx.getLangOpts());
        std::string Spelled;
        for (char C : Prefix)
          if (!std::isspace(static_cast<unsigned char>(C)))
            Spelled.push_back(C);
        if (Spelled.empty()) {
          FixText.clear();
          break;
        }
        FixText += Spelled + "zero_grad();" + Separator;
      }
    }

    const TrainingEvent &Step = *Loop.OptimizerSteps.front();
    {
      auto D = diag(compat::beginLoc(Loop.Loop),
                    "training loop never zeroes the gradients: each backward() adds to the "
                    "gradients of all previous iterations, so every step() applies their sum");
      if (!FixText.empty())
        D << FixItHint::CreateInsertion(FixLoc, FixText);
    }
    if (!Backward->Linked)
      diag((Backward->Inner ? Backward->Inner : Backward->Call)->getExprLoc(),
           "gradients accumulate here", DiagnosticIDs::Note);
    if (!Step.Linked)
      diag((Step.Inner ? Step.Inner : Step.Call)->getExprLoc(), "the optimizer steps here",
           DiagnosticIDs::Note);
    for (const TrainingEvent *E : {Backward, &Step})
      if (E->Linked && (E == Backward || E->Call != Backward->Call))
        diag(compat::beginLoc(E->Call),
             "'%0' is called in the training loop here; it is defined in another file and "
             "%select{runs a backward pass|steps the optimizer|runs a backward pass and steps the "
             "optimizer}1 there, without zeroing the gradients (linked summaries, option "
             "TorchSummaries)",
             DiagnosticIDs::Note)
            << E->Linked->getNameAsString()
            << (E == Backward ? (Step.Call == Backward->Call && Step.Linked ? 2 : 0) : 1);
      else if (E->Inner && (E == Backward || E->Call != Backward->Call))
        diag(compat::beginLoc(E->Call), "'%0' is called in the training loop here",
             DiagnosticIDs::Note)
            << E->Call->getDirectCallee()->getNameAsString();
    if (Loop.EpochLoop)
      for (const TrainingEvent &E : Analysis.events())
        if (E.zeroes() && isDescendant(E.Call, Loop.EpochLoop, Analysis.parents()) &&
            !isDescendant(E.Call, Loop.Loop, Analysis.parents())) {
          diag(E.Call->getExprLoc(),
               "gradients are zeroed here only once per iteration of the enclosing loop",
               DiagnosticIDs::Note);
          break;
        }
    if (LinkedStep)
      diag(compat::beginLoc(Loop.Loop),
           "no fix-it: '%0' is defined in another file; zero the gradients there, before its "
           "backward pass, or at the start of the loop body",
           DiagnosticIDs::Note)
          << LinkedStep->Linked->getNameAsString();
    else if (FixText.empty() && HelperBlocksFix)
      diag(compat::beginLoc(Loop.Loop),
           "no fix-it: the optimizer steps in '%0' and the backward pass runs outside it; zero "
           "the gradients before the forward pass",
           DiagnosticIDs::Note)
          << StepHelper->getNameAsString();
    else if (FixText.empty())
      diag(compat::beginLoc(Loop.Loop),
           "no fix-it: the optimizer cannot be named at the start of the %select{loop body|body "
           "of '%1'}0",
           DiagnosticIDs::Note)
          << (FixBody != Loop.Body) << (StepHelper ? StepHelper->getNameAsString() : "");
  }
}

} // namespace clang::tidy::torch_check
