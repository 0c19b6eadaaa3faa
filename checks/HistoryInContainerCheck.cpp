//===--- HistoryInContainerCheck.cpp - libtorch-tidy ----------------------===//

#include "HistoryInContainerCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/AnalysisCore.h"
#include "utils/FieldReads.h"
#include "utils/History.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"
#include "utils/Traversal.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// A container of tensors: a class template specialisation (std::vector,
/// std::deque, std::list, std::map, ...) that can hold a tensor, not a tensor.
bool isTensorContainer(QualType T) {
  const CXXRecordDecl *RD = classOf(T);
  if (!RD || isTensorType(T) || isAnyModuleLike(RD) || isOptimizerClass(RD) ||
      T->isDependentType() || !isa<ClassTemplateSpecializationDecl>(RD))
    return false;
  return mayCarryHistoryType(T);
}

} // namespace

/// `c.push_back(e)`, `c.emplace_back(e)`, `c.push_front(e)`,
/// `c.emplace_front(e)`, `c.insert(pos, e)`, `c.emplace(k, e)`, `c[k] = e`.
struct HistoryInContainerCheck::Insertion {
  const Expr *Stmt;
  const Expr *Container;
  llvm::SmallVector<const Expr *, 2> Values;
};

namespace {
using Insertion = HistoryInContainerCheck::Insertion;

/// The insertions of a body, from the calls its facts record
/// (FunctionFacts::calls).
class InsertionCollector {
public:
  llvm::SmallVector<Insertion, 8> Found;

  void add(const CallExpr *Call) {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      memberCall(MC);
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      operatorCall(Op);
  }

private:
  void memberCall(const CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->getIdentifier() || MC->getNumArgs() == 0)
      return;
    const Expr *Object = MC->getImplicitObjectArgument();
    if (!isTensorContainer(Object->getType()))
      return;
    llvm::StringRef Name = MD->getName();
    Insertion I{MC, Object, {}};
    if (Name == "push_back" || Name == "push_front" || Name == "emplace_back" ||
        Name == "emplace_front")
      for (const Expr *Arg : MC->arguments())
        I.Values.push_back(Arg);
    else if (Name == "insert")
      I.Values.push_back(MC->getArg(MC->getNumArgs() - 1)); // insert(pos, value), insert(pair)
    else if (Name == "emplace" || Name == "insert_or_assign" || Name == "try_emplace")
      for (const Expr *Arg : llvm::drop_begin(MC->arguments())) // emplace(key, value...)
        I.Values.push_back(Arg);
    if (!I.Values.empty())
      Found.push_back(std::move(I));
  }

  /// A key or index that names the same slot on every iteration: a literal
  /// (`metrics["loss"]`, `parts[0]`), an enumerator, or a const variable
  /// initialised by one.
  static bool isConstantKey(const Expr *Key) {
    const Expr *E =
        stripWrappers(Key, wrappers::Temporaries | wrappers::Constructions)->IgnoreParenImpCasts();
    if (isa<StringLiteral, IntegerLiteral, CharacterLiteral>(E))
      return true;
    // std::string("loss"): a converting construction whose other arguments
    // are defaults.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
        CE && CE->getNumArgs() >= 1 &&
        llvm::all_of(llvm::drop_begin(CE->arguments()),
                     [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
      return isConstantKey(CE->getArg(0));
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    if (DRE && isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    return VD && VD->getType().isConstQualified() && VD->getInit() && VD->getInit() != Key &&
           isConstantKey(VD->getInit());
  }

  void operatorCall(const CXXOperatorCallExpr *Op) {
    if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
      return;
    const Expr *Key = nullptr;
    const Expr *Object = containerSlot(Op->getArg(0)->IgnoreImplicit()->IgnoreParens(), Key);
    // The same slot replaced on every iteration keeps one graph, not one per
    // iteration.
    if (!Object || !isTensorContainer(Object->getType()) || isConstantKey(Key))
      return;
    Found.push_back({Op, Object, {Op->getArg(1)}});
  }
};

/// True when \p S calls `size()` on \p Container (`recent.size() > 10`).
bool testsSizeOf(const Stmt *Root, const ValueDecl *Container) {
  return anyStmt(Root, [&](const Stmt *S) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    return MD && MD->getIdentifier() && MD->getName() == "size" &&
           storageOf(MC->getImplicitObjectArgument()) == Container;
  });
}

/// `c.clear()`, `c.pop_front()`, `c.erase(...)`, `c = ...`, `c.swap(...)`,
/// `c.resize(n)` somewhere in \p S: the container does not grow without bound.
/// A pop under a test of the container's size (`if (recent.size() > N)
/// recent.pop_front();`) only trims a ring that still holds N graphs: not
/// counted.
bool isEmptiedIn(const Stmt *Root, const ValueDecl *Container) {
  // Pre-order, with whether an enclosing if or while (inside \p Root) tests
  // the container's size.
  llvm::SmallVector<std::pair<const Stmt *, bool>, 32> Work;
  if (Root)
    Work.push_back({Root, false});
  while (!Work.empty()) {
    auto [S, SizeTested] = Work.pop_back_val();
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && MD->getIdentifier() && storageOf(MC->getImplicitObjectArgument()) == Container) {
        llvm::StringRef Name = MD->getName();
        if (Name == "clear" || Name == "erase" || Name == "swap" || Name == "resize")
          return true;
        if ((Name == "pop_back" || Name == "pop_front" || Name == "pop") && !SizeTested)
          return true;
      }
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
      const Expr *LHS = Op->getArg(0)->IgnoreImplicit()->IgnoreParens();
      if (isa<DeclRefExpr, MemberExpr>(LHS) && storageOf(LHS) == Container)
        return true;
    }
    const Expr *Test = nullptr;
    if (const auto *If = dyn_cast<IfStmt>(S))
      Test = If->getCond();
    else if (const auto *While = dyn_cast<WhileStmt>(S))
      Test = While->getCond();
    const bool Tested = SizeTested || (Test && testsSizeOf(Test, Container));
    size_t First = Work.size();
    for (const Stmt *Child : S->children())
      if (Child)
        Work.push_back({Child, Tested});
    std::reverse(Work.begin() + First, Work.end());
  }
  return false;
}

/// True when a member function of \p Field's class other than \p Except,
/// defined in the translation unit, empties the member (a `reset()` or
/// `clear_history()` the owner calls).
bool emptiedByAMethod(const FieldDecl *Field, const FunctionDecl *Except) {
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return true; // unknown: stay silent
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = MD->getDefinition();
    if (!Def || Def == Except || !Def->hasBody())
      continue;
    if (isEmptiedIn(Def->getBody(), Field))
      return true;
  }
  return false;
}

/// The fix-it that detaches \p Value where \p I stores it: when the value is
/// the stored tensor itself (one value, `c[k] = v`, the value of `insert`),
/// not one of several constructor arguments of an emplace.
llvm::SmallVector<FixItHint, 2> detachFixes(const Insertion &I, const Expr *Value,
                                           const ASTContext &Ctx) {
  if (I.Values.size() == 1 || isa<CXXOperatorCallExpr>(I.Stmt) ||
      (Value == I.Values.back() &&
       cast<CXXMemberCallExpr>(I.Stmt)->getMethodDecl()->getName() == "insert"))
    return appendDetachFixIts(Value, Ctx);
  return {};
}

/// Where "the history comes from this call" points: \p Source when it is not
/// the stored value itself (invalid otherwise, or without a source).
SourceLocation historyNoteLoc(const Expr *Source, const Expr *Value) {
  return Source && Source != Value->IgnoreImplicit() ? Source->getExprLoc() : SourceLocation();
}

/// The data member \p Container names (`agent->logProbs`, `this->buffer`,
/// `pool.items`); null for anything else.
const FieldDecl *containerField(const Expr *Container) {
  const auto *ME = dyn_cast<MemberExpr>(Container->IgnoreParenImpCasts());
  return ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
}

} // namespace

void HistoryInContainerCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  // What the collector below looks for: a call of an inserting member, or an
  // assignment to an element (`c[k] = e`, `c.at(k) = e`).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed([](StringRef N) {
        return N == "push_back" || N == "push_front" || N == "emplace_back" ||
               N == "emplace_front" || N == "insert" || N == "emplace" ||
               N == "insert_or_assign" || N == "try_emplace";
      }) &&
      !(Facts.usesOperator(OO_Equal) && (Facts.usesOperator(OO_Subscript) || Facts.callsNamed("at"))))
    return;
  InsertionCollector Collector;
  for (const CallSite &Site : Facts.calls())
    if (const auto *Call = dyn_cast<CallExpr>(Site.E))
      Collector.add(Call);
  if (Collector.Found.empty())
    return;

  const SourceManager &SM = Ctx.getSourceManager();
  HistoryFunctions &Functions = core().history(Ctx);
  const HistoryAnalysis &History = core().historyOf(FD, Ctx);
  const ParentMap &PM = History.parentMap();

  for (const Insertion &I : Collector.Found) {
    const Stmt *Loop = enclosingLoop(I.Stmt, PM, Body);
    const ValueDecl *Container = storageOf(I.Container);
    if (!Container)
      continue;
    // Outside loops: a data member filled by a member function (a debug
    // buffer, a ring of recent outputs) grows by one graph per call, unless
    // some member function of the class empties it. Constructors run once; a
    // module's own members (activations kept for a feature loss) are left to
    // the code that reads them.
    const auto *Member = dyn_cast<FieldDecl>(Container);
    const auto *Method = dyn_cast<CXXMethodDecl>(FD);
    const bool KeptByMethod = !Loop && Member && Method && !isa<CXXConstructorDecl>(FD) &&
                              !isModuleClass(Method->getParent()) &&
                              !isEmptiedIn(Body, Container) && !emptiedByAMethod(Member, FD);
    // The first value stored that carries history made in this body.
    const Expr *Value = nullptr;
    const Expr *Source = nullptr;
    for (const Expr *V : I.Values)
      if ((Source = History.historySource(V))) {
        Value = V;
        break;
      }
    // A data member every reader takes detached (a rollout's log-probabilities
    // read as `torch::cat(agent->logProbs).detach()` at the update): each
    // graph stored is kept for nothing until the member is emptied, and
    // storing it detached changes no value anyone reads.
    if (const FieldDecl *Field = containerField(I.Container);
        Field && Source && !History.isGuarded(I.Stmt) &&
        reportReadOnlyDetached(FD, I, Field, Value, Source, Ctx))
      continue;
    // A method called once per iteration of a loop elsewhere: reported with the
    // call chain (or left alone when the member leaves the class). So is a
    // member filled in a loop of the method itself (one image per element of
    // a batch, an image pool) with values its callers bring: the method's own
    // loop makes no history, its callers' loop does.
    const bool LocalHistory = Loop && Source;
    if (Member && !LocalHistory && !History.isGuarded(I.Stmt) &&
        checkMemberInsertion(FD, I, Member, History, Ctx, KeptByMethod))
      continue;
    if (!Loop && !KeptByMethod)
      continue;
    if (Loop && !outlivesIteration(Container, Loop, SM))
      continue;
    if (!Source)
      continue;
    // Every graph stored was made before the loops the container outlives, and
    // the value is read through names none of which those loops change: each
    // iteration stores a tensor that something else already holds (the stored
    // outputs of earlier layers gathered for torch::cat), not a new graph.
    if (Loop && readsHistoryHeldBeforeLoops(Value, Source, Container, Loop, Body, PM, SM))
      continue;
    // Kept on purpose (rollouts of log-probabilities, per-step losses summed
    // later), or bounded by the loop.
    if (History.flowsIntoBackward(Container) || History.flowsIntoReturn(Container) ||
        isOutParameter(Container))
      continue;
    bool Emptied = false;
    for (const Stmt *L = Loop; L && outlivesIteration(Container, L, SM) && !Emptied;
         L = enclosingLoop(L, PM, Body))
      Emptied = isEmptiedIn(L, Container);
    if (Emptied) {
      // Emptied at the update, but every read of the local detaches it (a
      // rollout's log-probabilities read as `torch::cat(log_probs).detach()`):
      // each graph is kept for nothing until then, as for a member.
      if (const auto *Local = dyn_cast<VarDecl>(Container);
          Local && Local->hasLocalStorage() && !isa<ParmVarDecl>(Local) &&
          !Local->getType()->isReferenceType() && !History.isGuarded(I.Stmt)) {
        FieldReads::Reads Reads = localReads(Local, Body, Ctx);
        if (!Reads.Other && Reads.Detached > 0)
          reportReadOnlyDetached(FD, I, Local, Reads.FirstDetached, Value, Source, Ctx);
      }
      continue;
    }
    if (const auto *Field = dyn_cast<FieldDecl>(Container);
        Field && Functions.memberFlowsIntoBackward(Field, Ctx))
      continue;

    DeferredFinding F;
    F.Loc = compat::beginLoc(Value);
    F.Message = "'%0' keeps a tensor that carries autograd history: the graph of every iteration "
                "stays alive as long as '%0' holds it; store a detached tensor";
    F.Name = Container->getName().str();
    F.Range = Value->getSourceRange();
    F.Fixes = detachFixes(I, Value, Ctx);
    if (isa<VarDecl>(Container) && !cast<VarDecl>(Container)->hasGlobalStorage() &&
        !isa<ParmVarDecl>(Container))
      F.Notes.push_back({Container->getLocation(), "'%0' is declared outside the loop here"});
    F.Notes.push_back({historyNoteLoc(Source, Value), "the history comes from this call"});
    deferUntilCallersKnown(Ctx, FD, std::move(F));
  }
}

bool HistoryInContainerCheck::reportReadOnlyDetached(const FunctionDecl *FD, const Insertion &I,
                                                     const FieldDecl *Field, const Expr *Value,
                                                     const Expr *Source, ASTContext &Ctx) {
  SourceLocation Read;
  if (!core().fieldReadOnlyDetached(Field, Ctx, &Read))
    return false;
  reportReadOnlyDetached(FD, I, Field, Read, Value, Source, Ctx);
  return true;
}

void HistoryInContainerCheck::reportReadOnlyDetached(const FunctionDecl *FD, const Insertion &I,
                                                     const ValueDecl *Container,
                                                     SourceLocation Read, const Expr *Value,
                                                     const Expr *Source, ASTContext &Ctx) {
  DeferredFinding F;
  F.Loc = compat::beginLoc(Value);
  F.Message =
      "'%0' keeps a tensor that carries autograd history, but every read of '%0' detaches "
      "it: each graph stays alive for nothing until '%0' is emptied; store a detached tensor";
  F.Name = Container->getName().str();
  F.Range = Value->getSourceRange();
  F.Fixes = detachFixes(I, Value, Ctx);
  F.Notes.push_back({Read, "'%0' is read here, detached"});
  F.Notes.push_back({historyNoteLoc(Source, Value), "the history comes from this call"});
  deferUntilCallersKnown(Ctx, FD, std::move(F));
}

/// True when some method of \p Field's class, defined in the TU, empties it.
static bool memberEmptied(const FieldDecl *Field, const ASTContext &Ctx) {
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return true;
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = MD->getDefinition();
    if (Def && Def->getBody() && isEmptiedIn(Def->getBody(), Field))
      return true;
  }
  return false;
}

bool HistoryInContainerCheck::checkMemberInsertion(const FunctionDecl *FD, const Insertion &I,
                                                   const FieldDecl *Field,
                                                   const HistoryAnalysis &History,
                                                   ASTContext &Ctx, bool ReportWithoutChain) {
  HistoryFunctions &Functions = core().history(Ctx);
  if (!isa<CXXMethodDecl>(FD) || isInLambdaBelow(I.Stmt, FD->getBody(), History.parentMap()))
    return false;
  if (History.flowsIntoBackward(Field) || History.flowsIntoReturn(Field) ||
      memberLeavesClass(Field, Functions, Ctx) || memberEmptied(Field, Ctx))
    return true; // kept on purpose, or emptied: silent

  const Expr *Value = nullptr;
  std::optional<MemberHistoryTrace> Trace;
  for (const Expr *V : I.Values)
    if ((Trace = traceMemberHistory(FD, V, History, Functions, Ctx))) {
      Value = V;
      break;
    }
  if (!Trace)
    return false;
  llvm::SmallVector<FixItHint, 2> Fixes = detachFixes(I, Value, Ctx);
  SourceLocation Loc = compat::beginLoc(Value);
  SourceRange Range = Value->getSourceRange();
  std::string Name = Field->getName().str();
  SourceLocation FieldLoc = Field->getLocation();
  const SourceManager *SM = &Ctx.getSourceManager();
  // Reported without a chain only when the method itself makes the history (a
  // value from a parameter depends on what the callers pass).
  const Expr *Source = History.historySource(Value);
  ReportWithoutChain = ReportWithoutChain && Source;
  SourceLocation SourceLoc = historyNoteLoc(Source, Value);
  deferUntilCallersKnown(Ctx, FD, [this, FD, Field, Trace = *Trace, Value, Loc, Range, Fixes, Name, FieldLoc, SM,
                   &Ctx, ReportWithoutChain, SourceLoc](const CallGraph &Graph) {
    auto Chain = memberHistoryChain(Graph, CallDepth, FD, Field, Trace, core().history(Ctx), Ctx, *SM);
    // Not called from a loop of this file: a member that only grows still
    // keeps one graph per call (when no method of the class empties it).
    if (Chain.empty() && !ReportWithoutChain)
      return;
    {
      auto D = diag(Loc, "'%0' keeps a tensor that carries autograd history: the graph of every "
                         "iteration stays alive as long as '%0' holds it; store a detached tensor")
               << Name << Range;
      for (const FixItHint &Fix : Fixes)
        D << Fix;
    }
    if (Chain.empty()) {
      if (SourceLoc.isValid())
        diag(SourceLoc, "the history comes from this call", DiagnosticIDs::Note);
      return;
    }
    noteMemberHistory(
        [this](SourceLocation L, StringRef M) { return diag(L, M, DiagnosticIDs::Note); }, Chain,
        Trace, Value, Name, FieldLoc);
  });
  return true;
}

void HistoryInContainerCheck::reportAtEndOfUnit() { reportDeferredUnlessCallersGuarded(CallDepth); }

} // namespace clang::tidy::torch_check
