//===--- HistorySummary.cpp - libtorch-tidy -------------------------------===//

#include "HistorySummary.h"
#include "ASTHelpers.h"
#include "FunctionFacts.h"
#include "History.h"
#include "SummaryModel.h"
#include "TorchNames.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch_check {

namespace {

/// MemberAccumulations and MembersLeaving of the method \p FD (facts \p F).
void summariseMembers(const FunctionDecl *FD, const FunctionFacts &F, ASTContext &Ctx,
                      HistoryFunctions &Functions, FunctionSummary &S) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F.body());
  if (!MD || MD->isStatic() || !Body || !MD->getParent())
    return;
  const CXXRecordDecl *RD = MD->getParent();
  if (MD->getIdentifier() && MD->getName() == "forward" && isModuleClass(RD))
    return; // residual sums build the graph on purpose
  // The body's shared analysis (HistoryFunctions::analysis; asked outside
  // summary(), so the summaries it reads are final).
  auto OwnHistory = [&]() -> const HistoryAnalysis & { return Functions.analysis(FD, Ctx); };
  for (const FieldDecl *Field : RD->fields())
    if (mayCarryHistoryType(Field->getType()) &&
        (OwnHistory().flowsIntoBackward(Field) || OwnHistory().flowsIntoReturn(Field)))
      S.MembersLeaving.push_back(Field->getNameAsString());
  for (const Fact *Fc : F.of(Fact::InPlace)) {
    if (Fc->InLambda || !Fc->Value || F.isGuarded(Fc->S))
      continue;
    const auto *Field = dyn_cast_or_null<FieldDecl>(namedVariable(Fc->Object));
    if (!Field || Field->getParent() != RD || !isTensorType(Field->getType()))
      continue;
    // `total_ += x`, `total_ -= x`, `total_.add_(x)`, `total_.sub_(x)`.
    bool Accumulates = false;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Fc->S))
      Accumulates = Op->getOperator() == OO_PlusEqual || Op->getOperator() == OO_MinusEqual;
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Fc->S))
      Accumulates = MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
                    (MC->getMethodDecl()->getName() == "add_" ||
                     MC->getMethodDecl()->getName() == "sub_");
    if (!Accumulates || enclosingLoop(Fc->S, F.parents(), Body))
      continue;
    const HistoryAnalysis &History = OwnHistory();
    if (History.flowsIntoBackward(Field) || History.flowsIntoReturn(Field) ||
        memberLeavesClass(Field, Functions, Ctx))
      continue;
    std::optional<MemberHistoryTrace> Trace =
        traceMemberHistory(FD, Fc->Value, History, Functions, Ctx);
    if (!Trace)
      continue;
    S.MemberAccumulations.push_back({Field->getNameAsString(), Trace->ParamIndex});
  }
  normaliseMemberLists(S);
}

} // namespace

void summariseHistory(const FunctionDecl *FD, const FunctionFacts &F, ASTContext &Ctx,
                      HistoryFunctions &History, FunctionSummary &S) {
  HistoryFunctions::Summary H = History.summary(FD, Ctx);
  S.ReturnsHistory = H.Always;
  S.ReturnsHistoryFromArgs = H.FromArgs;
  summariseMembers(FD, F, Ctx, History, S);
}

} // namespace clang::tidy::torch_check
