//===--- HistorySummary.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// What the history analyses (History.h) add to a function's summary
// (SummaryModel.h's FunctionSummary): whether its result carries autograd
// history, and which data members of a method keep history that leaves the
// class or accumulates across calls. The summaries (Summaries.h) sit a layer
// below the history analyses and do not call them: the analysis core hands
// this to SummaryTable::build (its DomainFn) with the training loop's part
// (TrainingLoop.h's helperLoopEvents).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_HISTORYSUMMARY_H
#define LIBTORCH_TIDY_CHECKS_UTILS_HISTORYSUMMARY_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

namespace clang::tidy::torch_check {

class FunctionFacts;
class HistoryFunctions;
struct FunctionSummary;

/// Fills the history parts of \p S, the summary of \p FD (facts \p F):
/// ReturnsHistory and ReturnsHistoryFromArgs (HistoryFunctions::summary), and
/// for a method MembersLeaving and MemberAccumulations.
void summariseHistory(const FunctionDecl *FD, const FunctionFacts &F, ASTContext &Ctx,
                      HistoryFunctions &History, FunctionSummary &S);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_HISTORYSUMMARY_H
