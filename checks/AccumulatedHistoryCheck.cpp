//===--- AccumulatedHistoryCheck.cpp - libtorch-tidy ----------------------===//

#include "AccumulatedHistoryCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/ClangTidyCompat.h"
#include "utils/History.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/Summaries.h"
#include "utils/TorchMembers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// `acc += e`, `acc -= e`, `acc = acc + e`, `acc = e + acc`, `acc = acc - e`,
/// `acc.add_(e)`, `acc.sub_(e)` on a tensor `acc`.
struct Accumulation {
  const Expr *Stmt;  ///< the whole accumulation
  const Expr *Acc;   ///< the accumulator as written
  const Expr *Value; ///< what is added
  /// Appending `.detach()` to Value fixes it (not for `acc = c ? acc + e : e`,
  /// whose other branch stores `e` itself).
  bool Fixable = true;
  /// `acc[i] = e`, `acc.select(0, i) = e` (the analysis core's indexed
  /// assignment): a copy into acc's storage, recorded in e's graph.
  bool Copy = false;
  /// The accumulator's storage when Acc does not name it directly.
  const ValueDecl *AccDecl = nullptr;
};

/// The accumulations of a body, from the calls its facts record
/// (FunctionFacts::calls).
class AccumulationCollector {
public:
  llvm::SmallVector<Accumulation, 8> Found;

  void add(const CallExpr *Call) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      operatorCall(Op);
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      memberCall(MC);
  }

private:
  void operatorCall(const CXXOperatorCallExpr *Op) {
    if (Op->getNumArgs() != 2 || !isTensorType(Op->getArg(0)->getType()))
      return;
    const Expr *LHS = Op->getArg(0);
    switch (Op->getOperator()) {
    case OO_PlusEqual:
    case OO_MinusEqual:
      Found.push_back({Op, LHS, Op->getArg(1)});
      return;
    case OO_Equal:
      break;
    default:
      return;
    }
    const ValueDecl *Target = storageOf(LHS);
    if (!Target)
      return;
    auto IsTarget = [&](const Expr *E) {
      const Expr *B = skipImplicitTemporaries(E);
      return isa<DeclRefExpr, MemberExpr>(B) && storageOf(B) == Target;
    };
    // `acc = acc + e`, or either branch of `acc = acc.defined() ? acc + e : e`.
    llvm::SmallVector<const Expr *, 2> Candidates{skipImplicitTemporaries(Op->getArg(1))};
    const bool Conditional = isa<AbstractConditionalOperator>(Candidates.front());
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(Candidates.front()))
      Candidates = {skipImplicitTemporaries(Cond->getTrueExpr()),
                    skipImplicitTemporaries(Cond->getFalseExpr())};
    for (const Expr *Candidate : Candidates) {
      const auto *Sum = dyn_cast_or_null<CXXOperatorCallExpr>(Candidate);
      if (!Sum || Sum->getNumArgs() != 2 ||
          (Sum->getOperator() != OO_Plus && Sum->getOperator() != OO_Minus))
        continue;
      if (IsTarget(Sum->getArg(0)))
        Found.push_back({Op, LHS, Sum->getArg(1), !Conditional});
      else if (Sum->getOperator() == OO_Plus && IsTarget(Sum->getArg(1)))
        Found.push_back({Op, LHS, Sum->getArg(0), !Conditional});
      else
        continue;
      break;
    }
  }

  void memberCall(const CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MC->getNumArgs() < 1 ||
        (MD->getName() != "add_" && MD->getName() != "sub_") ||
        !isTensorType(MC->getImplicitObjectArgument()->getType()) ||
        !isTensorType(MC->getArg(0)->getType()))
      return;
    Found.push_back({MC, MC->getImplicitObjectArgument(), MC->getArg(0)});
  }
};

/// The warning on a tensor that keeps every iteration's graph: accumulated
/// into, or (\p Copy) copied into by index, in a loop or (\p EveryCall) in a
/// method called once per iteration.
llvm::StringRef keptHistoryMessage(bool Copy, bool EveryCall) {
  if (!Copy)
    return "'%0' accumulates a tensor that carries autograd history: the graph of every "
           "iteration stays alive as long as '%0' does; accumulate a detached value";
  return EveryCall ? "'%0' keeps a copy of a tensor that carries autograd history on every call: "
                     "the copy puts '%0' in the graph of every iteration, which stays alive as "
                     "long as '%0' does; store a detached value"
                   : "'%0' keeps a copy of a tensor that carries autograd history: the copy puts "
                     "'%0' in the graph of every iteration, which stays alive as long as '%0' "
                     "does; store a detached value";
}

/// How a finding names the tensor written: its storage's name, or, for a
/// tensor inside an object (`metrics.loss[e] = loss` on a local `metrics`),
/// the tensor as written, without its indexing (`metrics.loss`).
std::string writtenTensorName(const Expr *Written, const ValueDecl *Acc, const ASTContext &Ctx) {
  if (isTensorType(Acc->getType()))
    return Acc->getName().str();
  const Expr *E = Written;
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    E = stripCopies(E);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
      E = Op->getArg(0);
    else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
             MC && classifyTensorMethod(MC) == TensorMethodKind::View)
      E = MC->getImplicitObjectArgument();
    else
      break;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(E->getSourceRange()),
                                               SM, Ctx.getLangOpts());
  llvm::StringRef Text = R.isValid() ? Lexer::getSourceText(R, SM, Ctx.getLangOpts()) : "";
  return Text.empty() || Text.contains('\n') ? Acc->getName().str() : Text.str();
}

/// The target of an indexed write is a tensor's own element or view
/// (`losses[e]`, `metrics.loss[e]`, `outs[0][e]`), not a container's slot
/// holding a tensor (`loss_map["loss"]`: torch-history-in-container's).
bool writesTensorStorage(const Expr *Written) {
  const auto *Sub = dyn_cast<CXXOperatorCallExpr>(stripCopies(Written));
  return !Sub || Sub->getOperator() != OO_Subscript || Sub->getNumArgs() != 2 ||
         isTensorType(Sub->getArg(0)->getType());
}

/// A module's forward(): residual sums build the graph on purpose.
bool isModuleForward(const FunctionDecl *FD) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  return MD && MD->getIdentifier() && MD->getName() == "forward" && isModuleClass(MD->getParent());
}

} // namespace

void AccumulatedHistoryCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  if (isModuleForward(FD))
    return;
  checkLinkedMemberCalls(FD, Body, Ctx);
  AccumulationCollector Collector;
  // What the collector looks for: `+=`, `-=` or `=` on a tensor, add_ or sub_.
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (Facts.usesOperator(OO_PlusEqual) || Facts.usesOperator(OO_MinusEqual) ||
      Facts.usesOperator(OO_Equal) ||
      Facts.callsNamed([](StringRef N) { return N == "add_" || N == "sub_"; }))
    for (const CallSite &Site : Facts.calls())
      if (const auto *Call = dyn_cast<CallExpr>(Site.E))
        Collector.add(Call);
  // `losses[epoch] = loss`: the copy into a tensor that outlives the loop
  // keeps every iteration's graph, like a sum.
  for (const Fact *F : Facts.of(Fact::IndexedAssign))
    if (F->ObjectDecl && F->Value && F->Object && isTensorType(F->Object->getType()) &&
        writesTensorStorage(F->Object))
      Collector.Found.push_back({cast<Expr>(F->S), F->Object, F->Value, true, true, F->ObjectDecl});
  if (Collector.Found.empty())
    return;

  HistoryFunctions &Functions = core().history(Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  const HistoryAnalysis &History = core().historyOf(FD, Ctx);
  const ParentMap &PM = History.parentMap();

  for (const Accumulation &A : Collector.Found) {
    const Stmt *Loop = enclosingLoop(A.Stmt, PM, Body);
    const ValueDecl *Acc = A.AccDecl ? A.AccDecl : storageOf(A.Acc);
    if (!Loop && Acc && !History.isGuarded(A.Stmt)) {
      if (const auto *Field = dyn_cast<FieldDecl>(Acc))
        checkMemberUpdate(FD, A.Stmt, A.Acc, A.Value, A.Copy, Field, History, Ctx);
      continue;
    }
    if (!Loop || !Acc || !outlivesIteration(Acc, Loop, SM) || History.isGuarded(A.Stmt))
      continue;
    const Expr *Source = History.historySource(A.Value);
    if (!Source)
      continue;
    // Each iteration adds a graph something else already holds (a residual
    // layer summing the stored outputs of earlier layers): one add node per
    // input, no graph of the iteration's own.
    if (readsHistoryHeldBeforeLoops(A.Value, Source, Acc, Loop, Body, PM, SM))
      continue;
    // A total built on purpose: it is back-propagated here, in another member
    // function of the class, or handed to the caller.
    if (History.flowsIntoBackward(Acc) || History.flowsIntoReturn(Acc) || isOutParameter(Acc))
      continue;
    if (const auto *Field = dyn_cast<FieldDecl>(Acc);
        Field && Functions.memberFlowsIntoBackward(Field, Ctx))
      continue;

    DeferredFinding F;
    F.Loc = isa<CXXOperatorCallExpr>(A.Stmt) ? compat::beginLoc(A.Stmt) : A.Stmt->getExprLoc();
    F.Message = keptHistoryMessage(A.Copy, /*EveryCall=*/false).str();
    F.Name = writtenTensorName(A.Acc, Acc, Ctx);
    F.Range = A.Value->getSourceRange();
    if (A.Fixable)
      F.Fixes = appendDetachFixIts(A.Value, Ctx);
    if (!isa<FieldDecl>(Acc) && !cast<VarDecl>(Acc)->hasGlobalStorage() && !isa<ParmVarDecl>(Acc))
      F.Notes.push_back({Acc->getLocation(), "'%0' is declared outside the loop here"});
    if (Source != A.Value->IgnoreImplicit())
      F.Notes.push_back({Source->getExprLoc(), "the history comes from this call"});
    deferUntilCallersKnown(Ctx, FD, std::move(F));
  }
}

void AccumulatedHistoryCheck::checkMemberUpdate(const FunctionDecl *FD, const Expr *Stmt,
                                                const Expr *Written, const Expr *Value, bool Copy,
                                                const FieldDecl *Field,
                                                const HistoryAnalysis &History, ASTContext &Ctx) {
  HistoryFunctions &Functions = core().history(Ctx);
  if (!isa<CXXMethodDecl>(FD) || isInLambdaBelow(Stmt, FD->getBody(), History.parentMap()) ||
      History.flowsIntoBackward(Field) || History.flowsIntoReturn(Field) ||
      memberLeavesClass(Field, Functions, Ctx))
    return;
  auto Trace = traceMemberHistory(FD, Value, History, Functions, Ctx);
  if (!Trace)
    return;
  SourceLocation Loc = isa<CXXOperatorCallExpr>(Stmt) ? compat::beginLoc(Stmt) : Stmt->getExprLoc();
  SourceRange Range = Value->getSourceRange();
  auto Fixes = appendDetachFixIts(Value, Ctx);
  std::string Name = writtenTensorName(Written, Field, Ctx);
  SourceLocation FieldLoc = Field->getLocation();
  const SourceManager *SM = &Ctx.getSourceManager();
  deferUntilCallersKnown(
      Ctx, FD,
      [this, FD, Field, Trace = *Trace, Value, Loc, Range, Fixes, Name, FieldLoc, SM, Copy,
       &Ctx](const CallGraph &Graph) {
        auto Chain =
            memberHistoryChain(Graph, CallDepth, FD, Field, Trace, core().history(Ctx), Ctx, *SM);
        if (Chain.empty())
          return;
        {
          auto D = diag(Loc, keptHistoryMessage(Copy, /*EveryCall=*/true));
          D << Name << Range;
          for (const FixItHint &Fix : Fixes)
            D << Fix;
        }
        noteMemberHistory(
            [this](SourceLocation L, StringRef M) { return diag(L, M, DiagnosticIDs::Note); },
            Chain, Trace, Value, Name, FieldLoc);
      });
}

void AccumulatedHistoryCheck::checkLinkedMemberCalls(const FunctionDecl *FD, const Stmt *Body,
                                                     ASTContext &Ctx) {
  // Without a linked file there is no answer, and the questions are recorded
  // only when the unit's summaries are written.
  if (!core().external() && !core().writesSummaries())
    return;
  // The calls in a loop of methods defined elsewhere (not virtual).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  llvm::SmallVector<std::pair<const CXXMemberCallExpr *, const Stmt *>, 4> Calls;
  for (const CallSite &Site : Facts.calls()) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Site.E);
    if (!MC || !externalCallee(MC, Ctx))
      continue;
    const ParentMap &PM = Facts.parents();
    const Stmt *Loop = enclosingLoop(MC, PM, Body);
    if (Loop && !isInLambdaBelow(MC, Loop, PM))
      Calls.push_back({MC, Loop});
  }
  if (Calls.empty())
    return;
  HistoryFunctions &Functions = core().history(Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  const HistoryAnalysis *History = nullptr; // the core's, asked for on the first such call
  for (const auto &[MC, Loop] : Calls) {
    const auto *Method = dyn_cast_or_null<CXXMethodDecl>(externalCallee(MC, Ctx));
    if (!Method)
      continue;
    const FunctionSummary *S = core().externalSummary(Method);
    // The other methods of the class not defined here, asked whatever the
    // answer above (the questions must not depend on the answers: the
    // driver keeps the findings of a unit whose questions the link answers
    // as no file does). Null: no summary, unknown.
    llvm::SmallVector<const FunctionSummary *, 4> Others;
    for (const CXXMethodDecl *Other : Method->getParent()->methods())
      if (!Other->isImplicit() && !Other->isDeleted() && !Other->isDefaulted() &&
          !Other->isPureVirtual() &&
          !(Other->getDefinition() && Other->getDefinition()->hasBody()))
        Others.push_back(core().externalSummary(Other));
    if (!S || S->MemberAccumulations.empty())
      continue;
    // The object keeps the member across iterations.
    const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
    const ValueDecl *O = isa<CXXThisExpr>(Obj) ? nullptr : storageOf(Obj);
    if (!isa<CXXThisExpr>(Obj) && !(O && outlivesIteration(O, Loop, SM)))
      continue;
    if (!History)
      History = &core().historyOf(FD, Ctx);
    if (History->isGuarded(MC))
      continue;
    const CXXRecordDecl *RD = Method->getParent();
    for (const MemberAccumulation &Acc : S->MemberAccumulations) {
      const Expr *Arg = Acc.Param >= 0 ? argumentFor(MC, unsigned(Acc.Param)) : nullptr;
      if (Acc.Param >= 0 && (!Arg || !History->historySource(Arg)))
        continue;
      const FieldDecl *Field = nullptr;
      for (const FieldDecl *FDl : RD->fields())
        if (FDl->getName() == Acc.Member)
          Field = FDl;
      // Another method of the class hands the member on: here (defined in
      // this file), or in its own file (its linked summary). A method with
      // neither is unknown: silent.
      if (!Field || memberLeavesClass(Field, Functions, Ctx))
        continue;
      if (llvm::any_of(Others, [&](const FunctionSummary *OS) {
            return !OS || llvm::is_contained(OS->MembersLeaving, Acc.Member);
          }))
        continue;
      SourceLocation Loc = compat::beginLoc(MC);
      std::string Callee = Method->getNameAsString(), Member = Acc.Member;
      std::string Object = O ? O->getNameAsString() : "this";
      llvm::SmallVector<FixItHint, 2> Fixes;
      SourceRange Range;
      SourceLocation ArgLoc;
      if (Arg) {
        Range = Arg->getSourceRange();
        ArgLoc = Arg->getExprLoc();
        if (isTensorType(Arg->getType()))
          Fixes = appendDetachFixIts(Arg, Ctx);
      }
      SourceLocation DeclLoc = Method->getLocation();
      bool FromArg = Arg != nullptr;
      deferUntilCallersKnown(Ctx, FD, [this, Loc, Range, Fixes, Callee, Member, Object,
                                                     ArgLoc, DeclLoc, FromArg](const CallGraph &) {
        {
          auto D = diag(Loc, "'%0' accumulates %select{a tensor that carries autograd history|this "
                             "argument, which carries autograd history,}1 into the data member "
                             "'%2' on each call: the graph of every iteration stays alive as long "
                             "as '%3' does; %select{accumulate a detached value there|pass a "
                             "detached value}1")
                   << Callee << FromArg << Member << Object << Range;
          for (const FixItHint &Fix : Fixes)
            D << Fix;
        }
        if (ArgLoc.isValid())
          diag(ArgLoc, "this argument carries the history", DiagnosticIDs::Note);
        diag(DeclLoc,
             "'%0' is defined in another file and accumulates into '%1' there (linked summaries, "
             "option TorchSummaries)",
             DiagnosticIDs::Note)
            << Callee << Member;
      });
    }
  }
}

void AccumulatedHistoryCheck::reportAtEndOfUnit() { reportDeferredUnlessCallersGuarded(CallDepth); }

} // namespace clang::tidy::torch_check
