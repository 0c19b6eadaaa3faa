//===--- SyncInLoopCheck.cpp - libtorch-tidy ------------------------------===//

#include "SyncInLoopCheck.h"
#include "utils/AnalysisCore.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/TorchMembers.h"
#include "utils/TorchNames.h"
#include "utils/Summaries.h"
#include "utils/Syncs.h"
#include "utils/TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// \p S is in \p LoopBody and not in a lambda spelled there (which may not run
/// every iteration).
bool inLoopBody(const Stmt *S, const Stmt *LoopBody, const ParentMap &PM) {
  for (const Stmt *P = S; P; P = PM.getParent(P)) {
    if (P == LoopBody)
      return true;
    if (isa<LambdaExpr>(P))
      return false;
  }
  return false;
}

} // namespace

void SyncInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  // The synchronisations are the core's facts (item(), cpu(), to(kCPU),
  // torch::cuda::synchronize()); a call of a helper synchronises when its
  // summary says it does on every call (FunctionSummary::SyncEveryCall).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.has(Fact::Sync) && Facts.userFunctionCalls().empty())
    return;
  // A loop that trains through a helper (`loss = train_step(x, y)`, one
  // backward pass and step per call) is a training loop too.
  const TrainingLoopAnalysis &Analysis = core().trainingLoops(FD, Ctx, CallDepth, /*Linked=*/true);
  if (Analysis.empty())
    return;
  const ParentMap &PM = Analysis.parents();
  for (const TrainingLoop &Loop : Analysis.loops()) {
    auto RunsEveryIteration = [&](const CallExpr *Call) {
      return inLoopBody(Call, Loop.Body, PM) &&
             Analysis.runsEveryIteration(Call, Loop, /*ThroughNestedLoops=*/true);
    };
    // A call in this body that is one of the loop's events: a helper that
    // steps or takes the optimizer (TrainingEvent, OpaqueOptimizerUse).
    auto Trains = [&](const CallExpr *Call) {
      return llvm::any_of(Loop.Events, [Call](const TrainingEvent &E) { return E.Call == Call; });
    };
    for (const Fact *F : Facts.of(Fact::Sync)) {
      const auto *Call = dyn_cast<CallExpr>(F->S);
      // habitualSync leaves out a value that decides what the loop does.
      SyncKind K = Call ? habitualSync(Call, Loop.Loop, PM, Trains) : SyncKind::None;
      if (K == SyncKind::None || !RunsEveryIteration(Call))
        continue;
      diag(Call->getExprLoc(),
           "'%0' on every iteration of the training loop synchronizes the host with the "
           "device: the CPU waits until all queued GPU work is done before it can enqueue the "
           "next batch")
          << syncSpelling(K) << Call->getSourceRange();
      noteLoop(Loop);
    }
    if (CallDepth == 0)
      continue;
    // Helpers the loop calls on every iteration that synchronise on every
    // call (a gradient norm read with item() per parameter, an accuracy
    // returned with item(), an image copied to the host for a preview).
    const SummaryTable &Summaries = core().summaries(Ctx);
    for (const auto &[Call, Callee] : Facts.userFunctionCalls()) {
      if (!RunsEveryIteration(Call) || valueDecidesControlFlow(Call, Loop.Loop, PM, Trains))
        continue;
      const FunctionSummary *S = Summaries.lookup(Callee);
      const bool Elsewhere = !S;
      if (Elsewhere)
        if (const FunctionDecl *Ext = externalCallee(Call, Ctx))
          S = core().externalSummary(Ext);
      if (!S || !FunctionSummary::reaches(S->SyncEveryCall, CallDepth - 1))
        continue;
      // Defined here: the synchronisation itself, for the note (none when
      // the helper synchronises only through another file's function).
      const SummaryTable::SyncSite Sync =
          Elsewhere ? SummaryTable::SyncSite{} : Summaries.everyCallSync(Callee, CallDepth - 1);
      if (!Elsewhere && !Sync.Sync)
        continue;
      const std::string Named =
          (Call->getDirectCallee() ? Call->getDirectCallee() : Callee)->getQualifiedNameAsString();
      diag(Call->getBeginLoc(),
           "'%0' synchronizes the host with the device on every call, and the training loop calls "
           "it on every iteration: the CPU waits until all queued GPU work is done before it can "
           "enqueue the next batch")
          << Named << Call->getSourceRange();
      if (Elsewhere)
        diag(Call->getBeginLoc(), "'%0' is defined in another file (linked summaries, option TorchSummaries)",
             DiagnosticIDs::Note)
            << Named;
      else
        diag(Sync.Sync->getExprLoc(), "'%0' here, in '%1'%select{|, which '%2' calls}3",
             DiagnosticIDs::Note)
            << syncSpelling(classifySync(Sync.Sync)) << Sync.In->getQualifiedNameAsString()
            << Callee->getQualifiedNameAsString()
            << (SummaryTable::key(Sync.In) != SummaryTable::key(Callee) ? 1 : 0);
      noteLoop(Loop);
    }
  }
}

void SyncInLoopCheck::noteLoop(const TrainingLoop &Loop) {
  diag(compat::beginLoc(Loop.Loop),
       "training loop here; synchronize only under a logging condition (`if (step %% N == "
       "0)`) or after the loop",
       DiagnosticIDs::Note);
}

void SyncInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "CallDepth", CallDepth);
}

} // namespace clang::tidy::torch_check
