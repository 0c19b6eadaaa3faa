//===--- AnalysisCore.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// The analysis core: one context per translation unit, shared by every
// torch- check of a clang-tidy run (the way clazy's ClazyContext is shared).
//
// Design:
//   - One AnalysisCore per clang-tidy run (ClangTidyContext; clangd runs
//     several at once): TorchTidyModule's factories hand it to the run's
//     checks. clang-tidy creates the checks once per translation unit and
//     runs their matchers in one MatchFinder, so the core is handed the
//     ASTContext on each query and forgets everything when it changes (or
//     when a new translation unit starts: CoreCheck::onStartOfTranslationUnit).
//   - The checks on the core are called once per user function by one pass
//     over the functions (FunctionDispatch.h): for each function, each
//     check in turn, so a body is walked while its AST is in the cache.
//   - Per function, one walk of the body gathers its facts (FunctionFacts,
//     FunctionFacts.h):
//     forward passes, losses, backward / autograd::grad, optimizer steps,
//     zero_grad, grad-mode guards and set_enabled, eval() / train(), in-place
//     tensor writes (t.add_(x), t += x, indexed assignment `k[0] = f(x)`),
//     views, container inserts, device syncs, host clock readings,
//     TorchScript loads, and calls of
//     the user's functions (keyed by their template pattern), the names it
//     calls or constructs, the overloaded operators it spells, whether it
//     spells a lambda or constructs an optimizer, and every call and
//     construction (FunctionFacts::calls). The walk includes the lambdas
//     spelled in the body (marked InLambda). A check that asks about calls
//     reads them there; one that needs what the facts lack (declarations,
//     uses of variables) walks the body itself, and only when the facts say
//     a finding is possible.
//   - The body's parent map is built once (FunctionFacts::parents) and
//     shared by the training-loop and history analyses and the checks.
//   - Execution order inside the body and the lambda bodies spelled in it
//     comes from their CFGs (ExecutionOrder.h, the one CFG builder), built on
//     first use and kept with the facts; so do the body's definitions and
//     modifications per variable (DefUse.h).
//   - The training loops of a body (TrainingLoop.h: events, loops, their
//     parent map) are analysed once per function and call depth and shared
//     by the checks that ask (trainingLoops).
//   - The history analysis of a body (History.h: which values carry autograd
//     history) is built once per function and shared by the history checks
//     (historyOf). The core reports no finding: a check whose findings wait
//     for the end of the unit holds them itself and asks the one call graph
//     (calls(); CoreCheck::deferUntilCallersKnown).
//   - Function summaries (Summaries.h) are computed once per translation unit,
//     bottom-up over the call graph's strongly connected components, from the
//     facts of every user function.
//   - Across translation units: a global option (TorchSummaries) names the
//     linked summaries of a project (SummaryModel.h, written by
//     `libtorch-tidy summarize`). It is read once per process and version;
//     a function declared but not defined in the translation unit gets its
//     summary from it by USR (externalSummary), one level of calls deeper
//     like a callee defined here, and the callers' side says whether a
//     function's result reaches a backward pass in another file. Another
//     option (TorchSummariesOutput) names the file where the translation
//     unit's own summaries are written, atomically, at its end, with the
//     questions the checks asked of linked summaries (recorded with or
//     without a linked file: the driver keeps the findings of a unit whose
//     questions the link answers as no file does, and analyses the others
//     again with it). Without them nothing changes.
//   - The names of LibTorch's classes and members are spelled in TorchNames.h
//     only; the core asks its predicates.
//   - One helper per question (FunctionFacts.h): which variable an expression
//     names (namedVariable), which variable's storage it writes
//     (storageVariable), which argument a parameter receives (argumentFor,
//     parameterIndexFor).
//   - The core is the top layer of checks/utils (checks/utils/README.md):
//     it owns the analyses below it and wires the domain analyses' parts of a
//     summary into the summaries (SummaryTable::build's DomainFn).
//
// Cost: nothing is computed for a function until a check asks about it; the
// walk visits the user's function bodies only, never LibTorch's headers.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H

#include "CallGraph.h"
#include "DefUse.h"
#include "ExecutionOrder.h"
#include "FunctionFacts.h"
#include "GradGuards.h"
#include "History.h"
#include "SummaryModel.h"
#include "TrainingLoop.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <bitset>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace clang::tidy::torch_check {

class HistoryEscapes;
class FieldReads;

class SummaryTable;
class FunctionDispatch;

/// The translation unit's shared analysis context.
class AnalysisCore {
public:
  AnalysisCore();
  ~AnalysisCore();

  /// A new translation unit starts: forget everything at the next query.
  void beginTranslationUnit() {
    Stale = true;
    ReadsSummaries.clear();
    ReadsCallers.clear();
    ReadsKeeps.clear();
    ReadsFields.clear();
    Written.reset();
  }

  /// Cross-translation-unit configuration (the options TorchSummaries and
  /// TorchSummariesOutput): loads \p Input when it differs from the file
  /// loaded before. Returns the one-line error of a file that cannot be
  /// read or parsed, once per file (later calls return "": the core then
  /// works as without a file).
  std::string configure(llvm::StringRef Input, llvm::StringRef Output);
  /// The linked summaries, or null when none is loaded.
  const SummaryDocument *external() const { return External.get(); }
  /// The linked summary of \p FD when it has no definition in the
  /// translation unit (by USR of its template pattern); null otherwise.
  /// The question is recorded (ReadsSummaries).
  const FunctionSummary *externalSummary(const FunctionDecl *FD) const;
  /// True when the linked summaries say a caller in another file feeds the
  /// result of \p FD into a backward pass. The question is recorded
  /// (ReadsCallers).
  bool resultReachesBackwardElsewhere(const FunctionDecl *FD) const;
  /// True when the linked summaries say \p FD is called in other files and
  /// every call there holds a grad-mode guard on every path
  /// (SummaryDocument::calledOnlyUnderGuards). The question is recorded
  /// (ReadsCallers).
  bool calledOnlyUnderGuardsElsewhere(const FunctionDecl *FD) const;
  /// True when \p FD has no definition in the translation unit and its
  /// linked summary says a call keeps no value with history
  /// (FunctionSummary::KeepsNoHistory). The question is recorded (ReadsKeeps).
  bool keepsNoHistoryElsewhere(const FunctionDecl *FD) const;
  /// True when the translation unit's summaries are to be written.
  bool writesSummaries() const { return !OutputPath.empty(); }
  /// A check's part of the translation unit ends: writes the unit's
  /// summaries when asked to, with what the checks asked of the linked summaries so far
  /// (SummaryDocument::ReadsSummaries, ReadsCallers). Each check calls it
  /// after its last question, and each call rewrites the file (atomically),
  /// so the last one holds every question whatever the order of the checks.
  /// The summaries are built here when no check asked for them: whichever
  /// torch- checks are enabled, a unit asked to write its summaries writes
  /// them whole. Returns the write error, or "".
  std::string endTranslationUnit();

  /// The facts of \p FD's definition (built on first use).
  const FunctionFacts &facts(const FunctionDecl *FD, ASTContext &Ctx);
  /// facts() as the lookup the analyses built on the core take (training
  /// loops, summaries, history, member reads).
  FactsLookup factsLookup(ASTContext &Ctx) {
    return [this, &Ctx](const FunctionDecl *FD) -> const FunctionFacts & { return facts(FD, Ctx); };
  }

  /// The training loops of \p FD's body (TrainingLoopAnalysis, following
  /// calls \p CallDepth levels deep), built on first use for each depth and
  /// shared by every check that asks with the same depth.
  /// With \p Linked, helpers defined in other translation units contribute
  /// the events of their linked summaries (externalSummary; the question is
  /// recorded whether a linked file is loaded or not); the analysis is the
  /// shared one when the body calls no such helper (or when no linked file
  /// is loaded and no summaries are written).
  const TrainingLoopAnalysis &
  trainingLoops(const FunctionDecl *FD, ASTContext &Ctx, unsigned CallDepth,
                bool Linked = false);

  /// The function summaries of the translation unit (built on first use,
  /// once every function of the translation unit is parsed).
  const SummaryTable &summaries(ASTContext &Ctx);

  /// The history summaries of the translation unit (History.h), shared.
  HistoryFunctions &history(ASTContext &Ctx);
  /// Which values with history outlive a function (Escapes.h), over the
  /// history summaries and, for functions of other files, the linked
  /// summaries (externalSummary: the question is recorded).
  HistoryEscapes &escapes(ASTContext &Ctx);

  // ---- history (torch-carried-history, torch-accumulated-history,
  // torch-history-in-container) ----------------------------------------------

  /// The history analysis of \p FD's body (HistoryFunctions::analysis): one
  /// history walk per function (and per \p ParamsCarry), shared.
  const HistoryAnalysis &historyOf(const FunctionDecl *FD, ASTContext &Ctx,
                                   bool ParamsCarry = false);
  /// The prefilter of torch-carried-history, from the facts alone: true when
  /// \p FD's body (lambdas included) runs a forward pass and a backward pass
  /// or autograd::grad. Otherwise no state can carry a graph from one
  /// iteration into a backward pass of the same loop.
  bool runsForwardAndBackward(const FunctionDecl *FD, ASTContext &Ctx);
  /// The calls between the user's functions of the translation unit, with
  /// their guards and loops (CallGraph.h), collected once on first use. The
  /// depth limit is a parameter of each query (a check's CallDepth), so one
  /// graph serves every check: eval-without-no-grad, missing-eval and
  /// load-in-loop.
  const CallGraph &calls(ASTContext &Ctx);

  /// Every read of \p F (a data member that holds tensors in a container,
  /// FieldReads.h) takes its tensors detached, and some read does: in this
  /// unit and, with linked summaries, in every unit of the project (the
  /// question is recorded: ReadsFields). Without linked summaries only a
  /// member of a class defined in the main file (no other file can read it)
  /// is answered. \p FirstRead, when given, gets a detached read of this
  /// unit (invalid when there is none).
  bool fieldReadOnlyDetached(const FieldDecl *F, ASTContext &Ctx,
                             SourceLocation *FirstRead = nullptr);

  /// Every user function definition of the translation unit (Matchers.h's
  /// forEachUserFunction), in declaration order.
  llvm::ArrayRef<const FunctionDecl *> userFunctions(ASTContext &Ctx);

  /// The pass that calls every check on the core with each user function
  /// (FunctionDispatch.h).
  FunctionDispatch &dispatch();

private:
  void sync(ASTContext &Ctx);
  /// The USR of \p FD for a question about its callers in other files,
  /// recorded (ReadsCallers); empty when it has none.
  std::string askCallers(const FunctionDecl *FD) const;
  /// The USR of \p FD for a question about its linked summary, recorded in
  /// \p Asked (ReadsSummaries, ReadsKeeps); empty when \p FD is defined
  /// here (its own body decides) or has no USR.
  std::string askElsewhere(const FunctionDecl *FD, std::set<std::string> &Asked) const;
  /// FunctionSummary::KeepsNoHistory of the unit's functions, into \p Doc.
  void recordKeepsNoHistory(ASTContext &Ctx, SummaryDocument &Doc);
  /// How the unit's functions read the members that hold tensors in a
  /// container (FieldReads.h), walked on first use.
  const FieldReads &fieldReads(ASTContext &Ctx);
  /// SummaryDocument::FieldsReadDetached / FieldsReadOtherwise of the unit.
  void recordFieldReads(ASTContext &Ctx, SummaryDocument &Doc);

  ASTContext *Current = nullptr;
  bool Stale = true;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionFacts>> Facts;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>,
                 std::unique_ptr<TrainingLoopAnalysis>>
      Loops, LinkedLoops;
  /// What each helper contributes to its callers' training loops, shared
  /// by the training-loop analyses and the summaries' LoopEvents.
  std::unique_ptr<HelperEventTable> HelperEvents;
  std::unique_ptr<SummaryTable> Summaries;
  std::unique_ptr<HistoryFunctions> History;
  std::unique_ptr<HistoryEscapes> Escapes;
  std::unique_ptr<CallGraph> Calls;
  std::unique_ptr<FieldReads> Fields;
  std::vector<const FunctionDecl *> Functions;
  bool FunctionsListed = false;
  std::unique_ptr<FunctionDispatch> Dispatch;
  // Across translation units (configure()).
  std::string InputPath, OutputPath;
  std::unique_ptr<SummaryDocument> External;
  // What the checks asked of the linked summaries in this translation unit
  // (recorded with or without a linked document: the driver decides from
  // them whether the unit's findings depend on other files).
  mutable std::set<std::string> ReadsSummaries, ReadsCallers, ReadsKeeps, ReadsFields;
  /// What the last endTranslationUnit wrote (whether the summaries were
  /// built, how many questions of each kind): the questions only grow within
  /// a translation unit, so the same figures mean the same document.
  std::optional<std::tuple<bool, size_t, size_t, size_t, size_t>> Written;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ANALYSISCORE_H
