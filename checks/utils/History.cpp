//===--- History.cpp - libtorch-tidy --------------------------------------===//

#include "History.h"
#include "ASTHelpers.h"
#include "CallFacts.h"
#include "ClangTidyCompat.h"
#include "FunctionFacts.h"
#include "GradGuards.h"
#include "LoopVariables.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch_check {

static bool mayCarryHistoryTypeImpl(QualType T, unsigned Depth) {
  if (T.isNull() || Depth > 6)
    return false;
  T = T.getNonReferenceType();
  if (T->isDependentType() || T->isUndeducedType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (isTensorType(T) || isNamed(RD, "::c10::IValue"))
    return true;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec)
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Type &&
        mayCarryHistoryTypeImpl(Arg.getAsType(), Depth + 1))
      return true;
    if (Arg.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &P : Arg.pack_elements())
        if (P.getKind() == TemplateArgument::Type &&
            mayCarryHistoryTypeImpl(P.getAsType(), Depth + 1))
          return true;
  }
  return false;
}

bool mayCarryHistoryType(QualType T) { return mayCarryHistoryTypeImpl(T, 0); }

const CXXRecordDecl *tensorAggregate(QualType T) {
  if (T.isNull() || T->isDependentType())
    return nullptr;
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD || RD->isUnion() || !RD->isAggregate() || RD->getNumBases() != 0 ||
      isInLibraryNamespace(RD) || RD->isInStdNamespace() || mayCarryHistoryType(T))
    return nullptr;
  return llvm::any_of(RD->fields(),
                      [](const FieldDecl *F) { return mayCarryHistoryType(F->getType()); })
             ? RD
             : nullptr;
}

/// Calls on a tensor that cut its history: detach(), detach_(), item().
static bool isDetachingCall(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  if (!MC)
    return false;
  llvm::StringRef Name = calleeName(Call);
  if (Name != "detach" && Name != "detach_" && Name != "item")
    return false;
  const CXXRecordDecl *RD = MC->getMethodDecl()->getParent();
  return isDerivedFromOrSame(RD, names::Tensor) || isDerivedFromOrSame(RD, names::TensorBase);
}

/// tensor.to(kLong), tensor.to(device, kBool), tensor.toType(kInt).
static bool isIntegralConversion(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  if (!MC)
    return false;
  llvm::StringRef Name = calleeName(Call);
  if (Name != "to" && Name != "toType" && Name != "type")
    return false;
  if (!isDerivedFromOrSame(MC->getMethodDecl()->getParent(), names::Tensor))
    return false;
  for (const Expr *Arg : Call->arguments())
    if (isIntegralScalarTypeExpr(Arg))
      return true;
  return false;
}

/// Calls and expressions that end the history of their operands.
static bool stopsHistory(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(E);
  return Call && (isDetachingCall(Call) || isNoGradientCall(Call) || isIntegralConversion(Call) ||
                  isBackwardOrGradCall(Call) || isReductionIndices(Call));
}

bool cutsHistory(const Expr *E) { return E && stopsHistory(E->IgnoreParenImpCasts()); }

/// \p E without parentheses, implicit nodes, temporaries and functional
/// casts (`torch::Tensor(x)`).
static const Expr *strip(const Expr *E) {
  return stripWrappers(E, wrappers::Temporaries | wrappers::FunctionalCasts);
}

static bool isDetachExpr(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(strip(E));
  return Call && isDetachingCall(Call) && calleeName(Call) != "item";
}

// ---- summaries --------------------------------------------------------------

static const FunctionDecl *userDefinition(const FunctionDecl *FD, const ASTContext &Ctx) {
  if (!FD)
    return nullptr;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() || !isa_and_nonnull<CompoundStmt>(Def->getBody()))
    return nullptr;
  if (isInLibraryNamespace(Def) || Def->isInStdNamespace() ||
      Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return nullptr;
  return Def;
}

HistoryFunctions::HistoryFunctions(FactsLookup Facts) : Facts(std::move(Facts)) {}
HistoryFunctions::~HistoryFunctions() = default;

void HistoryFunctions::clear() {
  Summaries.clear();
  MemberBackward.clear();
  Analyses.clear();
}

const HistoryAnalysis &HistoryFunctions::analysis(const FunctionDecl *FD, ASTContext &Ctx,
                                                  bool ParamsCarry) {
  if (const FunctionDecl *Def = FD->getDefinition())
    FD = Def;
  auto Key = std::make_pair(FD, static_cast<unsigned>(ParamsCarry));
  if (auto It = Analyses.find(Key); It != Analyses.end())
    return *It->second;
  // Built before it is inserted: the map may grow meanwhile.
  auto A = std::make_unique<HistoryAnalysis>(Facts(FD), Ctx, *this, ParamsCarry);
  const HistoryAnalysis &Result = *A;
  Analyses[Key] = std::move(A);
  return Result;
}

/// Adds to \p Into every answer \p From gives; true when \p Into grew.
static bool join(HistoryFunctions::Summary &Into, const HistoryFunctions::Summary &From) {
  bool Grew = (From.Always && !Into.Always) || (From.FromArgs && !Into.FromArgs);
  Into.Always |= From.Always;
  Into.FromArgs |= From.FromArgs;
  for (const FieldDecl *F : From.FieldsAlways)
    if (!llvm::is_contained(Into.FieldsAlways, F)) {
      Into.FieldsAlways.push_back(F);
      Grew = true;
    }
  return Grew;
}

HistoryFunctions::Summary HistoryFunctions::summary(const FunctionDecl *FD, ASTContext &Ctx) {
  const FunctionDecl *Def = userDefinition(FD, Ctx);
  if (!Def)
    return {};
  const bool Carries = mayCarryHistoryType(Def->getReturnType());
  if (!Carries && !tensorAggregate(Def->getReturnType()))
    return {};
  auto It = Summaries.find(Def);
  if (It != Summaries.end()) {
    Entry &E = It->second;
    if (E.Done)
      return E.S;
    if (E.OnStack) { // a recursion: the cycle's value so far
      Lowest = std::min(Lowest, E.OnStack);
      return E.S;
    }
    // Built from a function still being built (the cycle's value then):
    // the answer holds while that function's build and its value last.
    if (E.Round == Round && E.Lowest <= Frames.size() && Frames[E.Lowest - 1] == E.Frame) {
      Lowest = std::min(Lowest, E.Lowest);
      return E.S;
    }
  }
  // Each summary is built inside its caller's (the analysis of a body asks
  // for its callees'): the user's code decides how long a chain of helpers
  // is, so past MaxHelperChain a helper reads as returning no history.
  if (Frames.size() >= MaxHelperChain)
    return {};
  Frames.push_back(++Builds);
  const unsigned Depth = Frames.size();
  const unsigned OuterLowest = Lowest;
  // A function in a cycle of calls starts from "no history" and is built
  // again with what the cycle gave until nothing changes (the answers only
  // grow: join), so every function of the cycle gets the cycle's least
  // fixpoint, whichever of them is asked first.
  Summary S;
  while (true) {
    Summaries[Def] = Entry{S, false, Depth, 0, 0, 0};
    Lowest = ~0u;
    const bool Grew = join(S, build(Def, Carries, Ctx));
    const unsigned Reached = Lowest;
    if (Reached < Depth) {
      // It read a function still being built below it: its answer holds
      // for this round of that function's cycle only.
      Summaries[Def] = Entry{S, false, 0, Round, Reached, Frames[Reached - 1]};
      Lowest = std::min(OuterLowest, Reached);
      break;
    }
    // Reached == Depth: it read itself, through a cycle. What it read may
    // change what it is; the other functions of the cycle, built in this
    // round, are built again in the next.
    if (Reached == Depth) {
      ++Round;
      if (Grew)
        continue;
    }
    Summaries[Def] = Entry{S, true, 0, 0, 0, 0};
    Lowest = OuterLowest;
    break;
  }
  Frames.pop_back();
  return S;
}

HistoryFunctions::Summary HistoryFunctions::build(const FunctionDecl *Def, bool Carries,
                                                  ASTContext &Ctx) {
  Summary S;
  {
    HistoryAnalysis Own(Facts(Def), Ctx, *this, /*ParamsCarry=*/false);
    if (Carries)
      S.Always = Own.returnsHistory();
    else // a struct of tensors: its fields only
      S.FieldsAlways = Own.fieldsReturningHistory();
  }
  if (S.Always) {
    S.FromArgs = true;
  } else if (Carries) {
    HistoryAnalysis FromParams(Facts(Def), Ctx, *this, /*ParamsCarry=*/true);
    S.FromArgs = FromParams.returnsHistory();
  }
  return S;
}

bool HistoryFunctions::memberFlowsIntoBackward(const FieldDecl *Field, ASTContext &Ctx) {
  if (!Field)
    return false;
  auto It = MemberBackward.find(Field);
  if (It != MemberBackward.end())
    return It->second;
  MemberBackward[Field] = false;
  bool Result = false;
  if (const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent()))
    for (const CXXMethodDecl *MD : RD->methods()) {
      const FunctionDecl *Def = userDefinition(MD, Ctx);
      if (!Def)
        continue;
      const HistoryAnalysis &A = analysis(Def, Ctx);
      if (!A.backwardCalls().empty() && A.flowsIntoBackward(Field)) {
        Result = true;
        break;
      }
    }
  MemberBackward[Field] = Result;
  return Result;
}

llvm::SmallVector<const CallGraph::Site *, 4>
chainKeepingMember(const CallGraph &Graph, unsigned Depth, const FunctionDecl *FD,
                   const FieldDecl *Field, const SourceManager &SM,
                   llvm::function_ref<bool(const CallGraph::Site &)> FirstCall) {
  auto Keeps = [&](const CallGraph::Site &S) {
    // A virtual call may run another override: ambiguous, not a chain.
    if (S.Guarded || S.Virtual)
      return false;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(S.Call);
    if (!MC || !Field)
      return false;
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (isa<CXXThisExpr>(Obj->IgnoreParenImpCasts()))
      return true;
    if (!S.Loop)
      return false;
    const ValueDecl *O = storageOf(Obj);
    return O && outlivesIteration(O, S.Loop, SM);
  };
  if (FirstCall) {
    for (const CallGraph::Site *S : Graph.callers(FD))
      if (S->Loop && Keeps(*S) && FirstCall(*S))
        return {S};
    return {};
  }
  return Graph.chainToLoop(FD, Depth, Keeps);
}

std::optional<MemberHistoryTrace>
traceMemberHistory(const FunctionDecl *FD, const Expr *Value, const HistoryAnalysis &History,
                   HistoryFunctions &Functions, ASTContext &Ctx) {
  if (const Expr *Source = History.historySource(Value))
    return MemberHistoryTrace{Source, -1};
  const HistoryAnalysis &ParamHistory = Functions.analysis(FD, Ctx, /*ParamsCarry=*/true);
  const Expr *Source = ParamHistory.historySource(Value);
  // A field of a parameter that is a struct of tensors (`result.loss`).
  const FieldDecl *Field = nullptr;
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Source)) {
    Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
    Source = strip(ME->getBase());
  }
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Source);
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!P)
    return std::nullopt;
  return MemberHistoryTrace{nullptr, static_cast<int>(P->getFunctionScopeIndex()), Field};
}

/// The argument a call passes to parameter \p I of its callee, or null.
llvm::SmallVector<const CallGraph::Site *, 4>
memberHistoryChain(const CallGraph &Graph, unsigned Depth, const FunctionDecl *FD,
                   const FieldDecl *Field, const MemberHistoryTrace &Trace,
                   HistoryFunctions &Functions, ASTContext &Ctx, const SourceManager &SM) {
  if (Trace.ParamIndex < 0)
    return chainKeepingMember(Graph, Depth, FD, Field, SM);
  return chainKeepingMember(Graph, Depth, FD, Field, SM, [&](const CallGraph::Site &S) {
    const Expr *Arg = argumentFor(S.Call, Trace.ParamIndex);
    const FunctionDecl *Caller = S.Caller->getDefinition();
    if (!Arg || !Caller || !Caller->getBody())
      return false;
    const HistoryAnalysis &CallerHistory = Functions.analysis(Caller, Ctx);
    return Trace.ParamField ? CallerHistory.fieldSource(Arg, Trace.ParamField) != nullptr
                            : CallerHistory.historySource(Arg) != nullptr;
  });
}

void noteMemberHistory(llvm::function_ref<DiagnosticBuilder(SourceLocation, llvm::StringRef)> Note,
                       llvm::ArrayRef<const CallGraph::Site *> Chain,
                       const MemberHistoryTrace &Trace, const Expr *Value, llvm::StringRef Name,
                       SourceLocation FieldLoc) {
  if (Trace.Source && Value && Trace.Source != Value->IgnoreImplicit())
    Note(Trace.Source->getExprLoc(), "the history comes from this call");
  Note(FieldLoc, "'%0' is a data member: it keeps its value from one call to the next") << Name;
  for (size_t I = 0; I < Chain.size(); ++I) {
    const CallExpr *Call = Chain[I]->Call;
    std::string Callee = Call->getDirectCallee()->getNameAsString();
    if (I + 1 < Chain.size())
      Note(compat::beginLoc(Call), "'%0' is called here") << Callee;
    else
      Note(compat::beginLoc(Call), "'%0' is called in a loop here, once per iteration") << Callee;
  }
  if (Trace.ParamIndex >= 0 && !Chain.empty())
    if (const Expr *Arg = argumentFor(Chain.back()->Call, Trace.ParamIndex))
      Note(Arg->getExprLoc(), "this argument carries the history");
}

bool memberLeavesClass(const FieldDecl *Field, HistoryFunctions &Functions, ASTContext &Ctx) {
  if (!Field)
    return true;
  if (Functions.memberFlowsIntoBackward(Field, Ctx))
    return true;
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return true;
  // A method that returns the member, or a value computed from it, with
  // history: the returns its walk met (its lambdas' included).
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = userDefinition(MD, Ctx);
    if (!Def)
      continue;
    for (const FunctionFacts::Node &N : Functions.facts(Def).nodes()) {
      const auto *R = dyn_cast_or_null<ReturnStmt>(N.S);
      const Expr *V = R ? R->getRetValue() : nullptr;
      if (V && mayCarryHistoryType(V->getType()) && refersTo(V, Field))
        return true;
    }
  }
  return false;
}

// ---- collection ---------------------------------------------------------------

void HistoryAnalysis::collect(llvm::ArrayRef<FunctionFacts::Node> Nodes) {
  for (const FunctionFacts::Node &N : Nodes) {
    if (const VarDecl *VD = N.Var) {
      if (!VD->isImplicit() && !isa<ParmVarDecl>(VD))
        if (const Expr *Init = VD->getInit())
          addDef(VD, Init);
      continue;
    }
    if (const auto *For = dyn_cast<CXXForRangeStmt>(N.S)) {
      if (const VarDecl *LoopVar = For->getLoopVariable())
        if (const Expr *Range = For->getRangeInit())
          addDef(LoopVar, Range);
    } else if (const auto *R = dyn_cast<ReturnStmt>(N.S)) {
      // The function's own returns, not a lambda's.
      if (!N.Lambda && R->getRetValue())
        Returns.push_back(R->getRetValue());
    } else if (const auto *Call = dyn_cast<CallExpr>(N.S)) {
      if (isBackwardOrGradCall(Call))
        Backwards.push_back(Call);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
        collectAssignment(Op);
      else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        collectMemberCall(MC);
    }
  }
}

void HistoryAnalysis::collectAssignment(const CXXOperatorCallExpr *Op) {
  switch (Op->getOperator()) {
  case OO_Equal:
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
    break;
  default:
    return;
  }
  if (Op->getNumArgs() != 2)
    return;
  const Expr *LHS = strip(Op->getArg(0));
  const Expr *RHS = Op->getArg(1);
  bool Detaches = Op->getOperator() == OO_Equal && isDetachExpr(RHS);
  // std::tie(a, b) = ...
  if (const auto *Tie = dyn_cast<CallExpr>(LHS);
      Tie && calleeName(Tie) == "tie" && Tie->getDirectCallee()->isInStdNamespace()) {
    for (const Expr *Arg : Tie->arguments())
      if (const ValueDecl *V = storageOf(Arg))
        addDef(V, RHS);
    return;
  }
  if (const ValueDecl *V = storageOf(LHS)) {
    if (Detaches)
      Detached.insert(V);
    else
      addDef(V, RHS);
  }
  // `r.loss = e` on a local struct: the field's own value too
  // (fieldsReturningHistory).
  if (const auto *ME = dyn_cast<MemberExpr>(LHS); ME && Op->getOperator() == OO_Equal)
    if (const auto *Base = dyn_cast<DeclRefExpr>(strip(ME->getBase())))
      if (const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl()))
        FieldAssignments.push_back({{Base->getDecl(), Field}, RHS});
}

void HistoryAnalysis::collectMemberCall(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getIdentifier())
    return;
  const ValueDecl *V = storageOf(MC->getImplicitObjectArgument());
  if (!V)
    return;
  llvm::StringRef Name = MD->getName();
  const CXXRecordDecl *RD = MD->getParent();
  if (isDerivedFromOrSame(RD, names::Tensor) || isDerivedFromOrSame(RD, names::TensorBase)) {
    if (Name == "detach_") {
      Detached.insert(V);
      return;
    }
    if (!Name.ends_with("_"))
      return;
  } else if (MD->isConst() || isAnyModuleLike(RD) || isOptimizerClass(RD)) {
    return;
  }
  for (const Expr *Arg : MC->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      addDef(V, Arg);
}

void HistoryAnalysis::addDef(const ValueDecl *V, const Expr *E) {
  if (const auto *BD = dyn_cast_or_null<BindingDecl>(V))
    V = BD->getDecomposedDecl();
  if (!V || !E)
    return;
  auto &List = Defs[V];
  if (List.empty())
    DefOrder.push_back(V);
  List.push_back(E);
}

HistoryAnalysis::HistoryAnalysis(const FunctionFacts &Facts, ASTContext &Ctx,
                                 HistoryFunctions &Functions, bool ParamsCarry)
    : Body(Facts.body()), Ctx(Ctx), Functions(Functions), ParamsCarry(ParamsCarry),
      PM(&Facts.parents()) {
  collect(Facts.nodes());
  // Solve the variables: a variable carries history when one of its
  // definitions does; iterate to the fixed point.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const ValueDecl *V : DefOrder) {
      if (VarSources.count(V) || Detached.contains(V))
        continue;
      for (const Expr *E : Defs[V])
        if (const Expr *Source = sourceOf(E)) {
          VarSources[V] = Source;
          Changed = true;
          break;
        }
    }
  }
  Solved = true;
}

bool HistoryAnalysis::isGuarded(const Stmt *S) const {
  if (!Guards)
    Guards = std::make_unique<GradGuardCache>(*PM, Ctx);
  return Guards->isDisabledAt(S);
}

const Expr *HistoryAnalysis::historySource(const Expr *E) const {
  if (!E)
    return nullptr;
  auto It = ExprSources.find(E);
  if (It != ExprSources.end())
    return It->second;
  const Expr *Source = sourceOf(E);
  ExprSources[E] = Source;
  return Source;
}

const Expr *HistoryAnalysis::historySource(const ValueDecl *V) const {
  if (const auto *BD = dyn_cast_or_null<BindingDecl>(V))
    V = BD->getDecomposedDecl();
  if (!V || Detached.contains(V))
    return nullptr;
  return VarSources.lookup(V);
}

llvm::ArrayRef<const Expr *> HistoryAnalysis::definitions(const ValueDecl *V) const {
  auto It = Defs.find(V);
  if (It == Defs.end())
    return {};
  return It->second;
}

// An expression's source is its own when it has one (a forward pass, a loss,
// a variable's), else the first of its operands' in order: a depth-first
// search with an explicit stack (the user's code decides how deep expressions
// nest: a loss summed over ten thousand terms), in the order of a recursive one.
const Expr *HistoryAnalysis::sourceOf(const Expr *Root) const {
  llvm::SmallVector<const Expr *, 16> Stack{Root};
  llvm::SmallVector<const Expr *, 8> Operands;
  // Null with \p Operands empty: no source; null with operands: look in them.
  auto Step = [&](const Expr *E) -> const Expr * {
    E = strip(E);
    if (!E)
      return nullptr;
    if (isa<DeclRefExpr, MemberExpr>(E)) {
      if (const auto *ME = dyn_cast<MemberExpr>(E))
        if (const Expr *FieldSource =
                fieldSource(ME->getBase(), dyn_cast<FieldDecl>(ME->getMemberDecl())))
          return FieldSource == ME->getBase() ? E : FieldSource;
      const ValueDecl *V = storageOf(E);
      if (!V)
        return nullptr;
      if (ParamsCarry && isa<ParmVarDecl>(V) && mayCarryHistoryType(V->getType()) &&
          !Detached.contains(V))
        if (const auto *Fn = dyn_cast<FunctionDecl>(V->getDeclContext()); Fn && Fn->getBody() == Body)
          return E;
      return historySource(V);
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
      Operands.append({Cond->getTrueExpr(), Cond->getFalseExpr()});
      return nullptr;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() == BO_Comma)
        Operands.push_back(BO->getRHS());
      return nullptr;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_Deref)
        Operands.push_back(UO->getSubExpr());
      return nullptr;
    }
    if (const auto *IL = dyn_cast<InitListExpr>(E)) {
      Operands.append(IL->inits().begin(), IL->inits().end());
      return nullptr;
    }
    if (const auto *SIL = dyn_cast<CXXStdInitializerListExpr>(E)) {
      Operands.push_back(SIL->getSubExpr());
      return nullptr;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (mayCarryHistoryType(Construct->getType()))
        Operands.append(Construct->arg_begin(), Construct->arg_end());
      return nullptr;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return nullptr;
    if (stopsHistory(Call))
      return nullptr;
    if (isForwardCall(Call) || isLossFunctionCall(Call))
      return isGuarded(Call) ? nullptr : Call;
    if (!mayCarryHistoryType(Call->getType()))
      return nullptr;
    // A computation under a guard makes a tensor without history; a call that
    // returns a reference (std::get, operator[] of a container) passes the
    // object through.
    bool Computes = !Call->getType()->isReferenceType() && Call->isPRValue();
    if (Computes && isGuarded(Call))
      return nullptr;

    const Expr *Object = nullptr;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      Object = MC->getImplicitObjectArgument();
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee); MD && MD->getParent()->isLambda())
        Object = nullptr; // calling a lambda: its captures are not its arguments
    if (Callee && userDefinition(Callee, Ctx)) {
      HistoryFunctions::Summary S = Functions.summary(Callee, Ctx);
      if (S.Always)
        return Call;
      if (!S.FromArgs)
        return nullptr;
    }
    if (Object)
      Operands.push_back(Object);
    for (unsigned I = isa<CXXOperatorCallExpr>(Call) &&
                              isa_and_nonnull<CXXMethodDecl>(Callee) &&
                              !cast<CXXMethodDecl>(Callee)->isStatic()
                          ? 1
                          : 0,
                  N = Call->getNumArgs();
         I < N; ++I)
      if (const Expr *Arg = Call->getArg(I); !isa<CXXDefaultArgExpr>(Arg))
        Operands.push_back(Arg);
    // Member operators (a[i], a += b): argument 0 is the object.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && isa_and_nonnull<CXXMethodDecl>(Callee) && Op->getNumArgs() >= 1 &&
        !cast<CXXMethodDecl>(Callee)->getParent()->isLambda())
      Operands.push_back(Op->getArg(0));
    return nullptr;
  };
  while (!Stack.empty()) {
    Operands.clear();
    if (const Expr *S = Step(Stack.pop_back_val()))
      return S;
    Stack.append(Operands.rbegin(), Operands.rend());
  }
  return nullptr;
}

bool HistoryAnalysis::mentionsAny(const Stmt *S,
                                  const llvm::SmallPtrSetImpl<const ValueDecl *> &Vars) const {
  return !walkStmts(S, [&](const Stmt *X) {
    const auto *E = dyn_cast<Expr>(X);
    if (!E)
      return Walk::Into;
    if (stopsHistory(E->IgnoreParenImpCasts()))
      return Walk::Skip;
    if (isa<DeclRefExpr, MemberExpr>(E)) {
      const ValueDecl *V = storageOf(E);
      if (const auto *BD = dyn_cast_or_null<BindingDecl>(V))
        V = BD->getDecomposedDecl();
      if (V && Vars.contains(V))
        return Walk::Stop;
    }
    return Walk::Into;
  });
}

bool HistoryAnalysis::mentions(const Stmt *S, const ValueDecl *V) const {
  llvm::SmallPtrSet<const ValueDecl *, 1> One;
  One.insert(V);
  return mentionsAny(S, One);
}

const llvm::SmallPtrSetImpl<const ValueDecl *> &
HistoryAnalysis::flowSet(const ValueDecl *V) const {
  auto &Slot = FlowSets[V];
  if (Slot)
    return *Slot;
  auto Set = std::make_unique<llvm::SmallPtrSet<const ValueDecl *, 8>>();
  Set->insert(V);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const ValueDecl *W : DefOrder) {
      if (Set->contains(W))
        continue;
      for (const Expr *E : Defs.find(W)->second)
        if (mentionsAny(E, *Set)) {
          Set->insert(W);
          Changed = true;
          break;
        }
    }
  }
  auto &Result = *Set;
  FlowSets[V] = std::move(Set);
  return Result;
}

bool HistoryAnalysis::dependsOn(const Expr *E, const ValueDecl *V) const {
  return V && mentionsAny(E, flowSet(V));
}

bool HistoryAnalysis::flowsIntoBackward(const ValueDecl *V) const {
  if (!V)
    return false;
  const auto &Set = flowSet(V);
  // The backward call itself stops history; look at what it is called on.
  return llvm::any_of(Backwards, [&](const CallExpr *C) {
    return llvm::any_of(C->children(), [&](const Stmt *Child) { return mentionsAny(Child, Set); });
  });
}

bool HistoryAnalysis::flowsIntoReturn(const ValueDecl *V) const {
  if (!V)
    return false;
  const auto &Set = flowSet(V);
  return llvm::any_of(Returns, [&](const Expr *R) {
    return mayCarryHistoryType(R->getType()) && mentionsAny(R, Set);
  });
}

bool HistoryAnalysis::returnsHistory() const {
  return llvm::any_of(Returns, [&](const Expr *R) { return historySource(R) != nullptr; });
}

llvm::SmallVector<const FieldDecl *, 2> HistoryAnalysis::fieldsReturningHistory() const {
  llvm::SmallVector<const FieldDecl *, 2> Fields;
  auto Note = [&](const FieldDecl *F, const Expr *Value) {
    if (F && !llvm::is_contained(Fields, F) && mayCarryHistoryType(F->getType()) &&
        historySource(Value))
      Fields.push_back(F);
  };
  // A braced initialiser of the struct: its i-th value initialises its i-th
  // field (an aggregate without bases).
  auto NoteBraced = [&](const Expr *E) {
    const auto *IL = dyn_cast_or_null<InitListExpr>(strip(E));
    const CXXRecordDecl *RD = IL ? tensorAggregate(IL->getType()) : nullptr;
    if (!RD)
      return;
    if (IL->isSyntacticForm() && IL->getSemanticForm())
      IL = IL->getSemanticForm();
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
      if (I >= IL->getNumInits())
        break;
      Note(F, IL->getInit(I++));
    }
  };
  for (const Expr *R : Returns) {
    NoteBraced(R);
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(strip(stripCopies(R)));
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !tensorAggregate(V->getType()))
      continue;
    if (V->getInit())
      NoteBraced(V->getInit());
    // `r.loss = loss;`
    for (const auto &[Assigned, Value] : FieldAssignments)
      if (Assigned.first == V)
        Note(Assigned.second, Value);
  }
  return Fields;
}

const Expr *HistoryAnalysis::fieldSource(const Expr *Struct, const FieldDecl *Field) const {
  if (!Struct || !Field || !mayCarryHistoryType(Field->getType()) ||
      !tensorAggregate(Struct->getType()))
    return nullptr;
  // The struct as a call's result (`update(x).loss`), or a local it
  // initialises (`Result r = update(x); r.loss`).
  llvm::SmallVector<const Expr *, 2> Values;
  const Expr *Base = strip(Struct);
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Base)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (const auto *P = dyn_cast_or_null<ParmVarDecl>(V); P && ParamsCarry) {
      const auto *Fn = dyn_cast<FunctionDecl>(P->getDeclContext());
      return Fn && Fn->getBody() == Body ? Struct : nullptr;
    }
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return nullptr;
    auto It = Defs.find(V);
    if (It != Defs.end())
      Values.append(It->second.begin(), It->second.end());
  } else {
    Values.push_back(Base);
  }
  for (const Expr *Value : Values) {
    const auto *Call = dyn_cast_or_null<CallExpr>(strip(Value));
    if (!Call || isGuarded(Call))
      continue;
    if (llvm::is_contained(Functions.summary(Call->getDirectCallee(), Ctx).FieldsAlways, Field))
      return Call;
  }
  return nullptr;
}

llvm::SmallVector<FixItHint, 2> appendDetachFixIts(const Expr *E, const ASTContext &Ctx) {
  llvm::SmallVector<FixItHint, 2> Fixes;
  if (!E || !isTensorType(E->getType()))
    return Fixes;
  const Expr *Written = E->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Written);
      Construct && Construct->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(Construct))
    Written = Construct->getArg(0)->IgnoreImplicit();
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Written->getSourceRange()), SM, Ctx.getLangOpts());
  if (Range.isInvalid() || compat::beginLoc(Written).isMacroID() || Written->getEndLoc().isMacroID())
    return Fixes;
  bool Simple = isa<DeclRefExpr, MemberExpr, ParenExpr, CXXFunctionalCastExpr>(Written);
  if (const auto *Call = dyn_cast<CallExpr>(Written)) {
    Simple = true;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      Simple = Op->getOperator() == OO_Call || Op->getOperator() == OO_Subscript;
  }
  if (Simple) {
    Fixes.push_back(FixItHint::CreateInsertion(Range.getEnd(), ".detach()"));
  } else {
    Fixes.push_back(FixItHint::CreateInsertion(Range.getBegin(), "("));
    Fixes.push_back(FixItHint::CreateInsertion(Range.getEnd(), ").detach()"));
  }
  return Fixes;
}

/// The variables and data members that \p E reads a stored tensor through,
/// when \p E is only such a path (`x`, `net->layers[j].output`, `v[i]`, `*p`,
/// through implicit nodes and copies); false when it computes anything else.
static bool namedPath(const Expr *E, llvm::SmallVectorImpl<const ValueDecl *> &Decls) {
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (CE->getNumArgs() != 1 || !CE->getConstructor()->isCopyOrMoveConstructor())
        return false;
      E = CE->getArg(0);
    } else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
    } else if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      Decls.push_back(DRE->getDecl());
      return isa<VarDecl>(DRE->getDecl());
    } else if (isa<CXXThisExpr>(E)) {
      return true;
    } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!isa<FieldDecl>(ME->getMemberDecl()))
        return false;
      Decls.push_back(ME->getMemberDecl());
      E = ME->getBase();
    } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
      E = AS->getBase();
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
               Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      E = Op->getArg(0);
    } else if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref) {
      E = UO->getSubExpr();
    } else {
      return false;
    }
  }
  return false;
}

/// True when \p Scope assigns one of \p Decls or calls a non-const member
/// function on it (`layers.push_back(...)` changes what `layers[j]` reads).
static bool changedWithin(llvm::ArrayRef<const ValueDecl *> Decls, const Stmt *Scope) {
  for (const ValueDecl *D : Decls)
    if (isAssignedWithin(D, Scope))
      return true;
  return anyStmt(Scope, [&](const Stmt *S) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    if (!MD || MD->isConst())
      return false;
    const Expr *Obj = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
    const ValueDecl *D = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj))
      D = DRE->getDecl();
    else if (const auto *ME = dyn_cast<MemberExpr>(Obj))
      D = ME->getMemberDecl();
    return D && llvm::is_contained(Decls, D);
  });
}

bool readsHistoryHeldBeforeLoops(const Expr *Value, const Expr *Source, const ValueDecl *Holder,
                                 const Stmt *Loop, const Stmt *Body, const ParentMap &PM,
                                 const SourceManager &SM) {
  const Stmt *Outer = Loop;
  for (const Stmt *L = enclosingLoop(Loop, PM, Body); L && outlivesIteration(Holder, L, SM);
       L = enclosingLoop(L, PM, Body))
    Outer = L;
  llvm::SmallVector<const ValueDecl *, 4> Path;
  return !isDescendant(Source, Outer, PM) && namedPath(Value, Path) && !changedWithin(Path, Outer);
}

} // namespace clang::tidy::torch_check
