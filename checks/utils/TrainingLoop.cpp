//===--- TrainingLoop.cpp - libtorch-tidy ---------------------------------===//

#include "TrainingLoop.h"
#include "ClangTidyCompat.h"
#include "ASTHelpers.h"
#include "CallGraph.h"
#include "Callees.h"
#include "FunctionFacts.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch_check {

/// An optimizer, a pointer to one or a smart pointer to one.
static bool isOptimizerLike(QualType T) {
  const CXXRecordDecl *RD = classOf(T, /*LookThroughPointers=*/true);
  if (!RD)
    return false;
  if (isOptimizerClass(RD))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
      if (Arg.getKind() == TemplateArgument::Type &&
          isOptimizerClass(classOf(Arg.getAsType(), true)))
        return true;
  return false;
}

/// A value through which a function may reach parameters' gradients: a
/// module, an optimizer (or a pointer or holder of one), a container that may
/// hold tensors (a parameter list), or a class of the user's with such a
/// field (a trainer holding its model and optimizer). Not a single tensor.
static bool mayReachGradients(QualType T, unsigned Depth = 0) {
  const CXXRecordDecl *RD = classOf(T, /*LookThroughPointers=*/true);
  if (!RD || isTensorType(T.getNonReferenceType()))
    return false;
  if (isAnyModuleLike(RD) || isOptimizerLike(T) || mayHoldTensor(T.getNonReferenceType()))
    return true;
  if (Depth > 1 || isInLibraryNamespace(RD) || RD->isInStdNamespace() || !RD->hasDefinition())
    return false;
  return llvm::any_of(RD->getDefinition()->fields(), [&](const FieldDecl *F) {
    return mayReachGradients(F->getType(), Depth + 1);
  });
}

/// `p.grad()`, `p.mutable_grad()` (through `.data()` / `.detach()`).
static bool isGradAccess(const Expr *E) {
  while (E) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(E->IgnoreParenImpCasts());
    if (!MC)
      return false;
    llvm::StringRef Name = calleeName(MC);
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !(isDerivedFromOrSame(MD->getParent(), names::Tensor) ||
                 isDerivedFromOrSame(MD->getParent(), names::TensorBase)))
      return false;
    if (Name == "grad" || Name == "mutable_grad")
      return true;
    if (Name != "data" && Name != "detach" && Name != "detach_")
      return false;
    E = MC->getImplicitObjectArgument();
  }
  return false;
}

/// `zero_grad`, `zeroGrad`, `zero_gradients`, `reset_grads`, `clearGradients`...:
/// a user function that says it zeroes gradients.
static bool nameSaysZeroGrad(llvm::StringRef Name) {
  std::string Folded;
  for (char C : Name)
    if (C != '_')
      Folded.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(C))));
  llvm::StringRef F(Folded);
  return F.contains("zerograd") ||
         (F.contains("grad") && (F.contains("zero") || F.contains("reset") || F.contains("clear")));
}

static bool alwaysRuns(const Stmt *Child, const Stmt *Parent, bool ThroughLoops);

/// FunctionSummary::LoopEvents' letters.
static std::optional<TrainingEvent::Kind> decodeEvent(char C) {
  switch (C) {
  case 'B':
    return TrainingEvent::Backward;
  case 'G':
    return TrainingEvent::Grad;
  case 'S':
  case 'C':
    return TrainingEvent::Step;
  case 'Z':
    return TrainingEvent::ZeroGrad;
  case 'M':
    return TrainingEvent::ModuleZeroGrad;
  case 'X':
    return TrainingEvent::ManualZero;
  case 'O':
    return TrainingEvent::OpaqueOptimizerUse;
  default:
    return std::nullopt;
  }
}

/// A step(closure) whose closure is not spelled at the call: it may zero.
static bool hasOpaqueClosure(const CallExpr *Step) {
  for (const Expr *Arg : Step->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    const Expr *E = Arg->IgnoreImplicit()->IgnoreParens();
    while (true) {
      if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
          Construct && Construct->getNumArgs() == 1) {
        E = Construct->getArg(0)->IgnoreImplicit()->IgnoreParens();
        continue;
      }
      if (const auto *Cast = dyn_cast<CastExpr>(E)) {
        E = Cast->getSubExpr()->IgnoreImplicit()->IgnoreParens();
        continue;
      }
      break;
    }
    if (isa<LambdaExpr, CXXNullPtrLiteralExpr>(E))
      continue;
    return true;
  }
  return false;
}

namespace {

/// What a walk met besides events; each is raised and never lowered.
struct WalkFlags {
  /// A call of a helper defined in another translation unit was met.
  bool CallsOtherUnits = false;
  /// A helper defined here was not followed: the depth ran out.
  bool Truncated = false;
  /// At depth 0: a helper defined in another translation unit is called
  /// (a deeper walk would ask for its linked summary).
  bool MeetsOtherUnits = false;
  /// A helper already on the walk's path was called (and not followed).
  bool MetOnPath = false;

  void raise(const WalkFlags &O) {
    CallsOtherUnits |= O.CallsOtherUnits;
    Truncated |= O.Truncated;
    MeetsOtherUnits |= O.MeetsOtherUnits;
    MetOnPath |= O.MetOnPath;
  }
};

} // namespace

/// The events a helper contributes at its call sites.
struct HelperEventTable::Events {
  bool Opaque = false; ///< runs them conditionally, in a loop or a lambda
  llvm::SmallVector<TrainingEvent, 4> List;
  /// What the helper's walk met (raised again in a walk that reads it).
  WalkFlags Raised;
};

HelperEventTable::HelperEventTable() = default;
HelperEventTable::~HelperEventTable() = default;

const HelperEventTable::Events *HelperEventTable::lookup(Key K) const {
  auto It = Known.find(K);
  return It == Known.end() ? nullptr : It->second.get();
}

void HelperEventTable::enter(Key K, const Events &E) {
  Known.try_emplace(K, std::make_unique<Events>(E));
}

namespace {

using HelperEvents = HelperEventTable::Events;

/// What one walk (a body and the helpers it follows) shares.
struct WalkState {
  WalkState(TrainingLoopAnalysis::FactsRef Facts, HelperEventTable &Table)
      : Facts(Facts), Table(Table) {}
  /// The facts of the helpers the walk follows (their calls).
  TrainingLoopAnalysis::FactsRef Facts;
  /// The helpers' events, per depth, shared by every walk of the unit.
  HelperEventTable &Table;
  llvm::SmallPtrSet<const FunctionDecl *, 4> OnPath;
  /// The linked summaries of helpers defined in other translation units.
  TrainingLoopAnalysis::LinkedLookup Linked;
  WalkFlags Flags;
  /// The walk writes a summary's loop events (helperLoopEvents): no linked
  /// summary is known, and a call of another unit's function that may reach
  /// gradients (mayReachGradients) may zero them there: opaque.
  bool Summarising = false;

  /// The table's key for a helper's events seen from a walk of \p Depth.
  HelperEventTable::Key key(const FunctionDecl *Def, unsigned Depth) const {
    using W = HelperEventTable::Walk;
    return {Def->getCanonicalDecl(), Depth,
            Summarising ? W::Summary
            : Linked    ? W::Linked
                        : W::Unit};
  }
};

/// The training events of a body, read from the calls its facts record
/// (FunctionFacts::calls, lambdas included), with the helpers it calls
/// expanded at their call sites.
class EventCollector {
public:
  EventCollector(llvm::SmallVectorImpl<TrainingEvent> &Events, const ASTContext &Ctx,
                 unsigned CallDepth, WalkState &Walk)
      : Events(Events), Ctx(Ctx), SM(Ctx.getSourceManager()), CallDepth(CallDepth),
        OnPath(Walk.OnPath), Walk(Walk) {}

  void collect(const FunctionFacts &Facts) {
    for (const CallSite &Site : Facts.calls())
      if (const auto *Call = dyn_cast<CallExpr>(Site.E))
        visitCall(Call);
  }

private:
  void visitCall(const CallExpr *Call) {
    std::optional<TrainingEvent::Kind> Kind = classify(Call);
    if (!Kind && CallDepth > 0 && expand(Call))
      return;
    if (!Kind && CallDepth > 0 && expandLinked(Call))
      return;
    if (!Kind && Walk.Summarising && mayZeroInOtherUnit(Call))
      Kind = TrainingEvent::OpaqueOptimizerUse;
    if (!Kind && CallDepth == 0 && followableCallee(Call, Ctx))
      Walk.Flags.Truncated = true;
    else if (!Kind && CallDepth == 0 && !Walk.Flags.MeetsOtherUnits && externalCallee(Call, Ctx))
      Walk.Flags.MeetsOtherUnits = true;
    if (!Kind)
      Kind = classifyOpaque(Call);
    if (!Kind)
      return;
    TrainingEvent E{*Kind, Call};
    if (isa<CXXMemberCallExpr>(Call) && *Kind != TrainingEvent::ManualZero &&
        *Kind != TrainingEvent::OpaqueOptimizerUse) {
      E.Object = memberCallObject(Call);
      E.ObjectDecl = namedDecl(E.Object);
    }
    Events.push_back(E);
  }

  /// The event of \p Call itself: backward, step and zero_grad as the facts
  /// classify them (classifyTrainingCall), and the manual zeroing of
  /// gradients (`p.grad().zero_()`, `p.mutable_grad() = {}`, a user function
  /// named like zero_grad).
  std::optional<TrainingEvent::Kind> classify(const CallExpr *Call) {
    switch (classifyTrainingCall(Call)) {
    case TrainingCall::Backward:
      return TrainingEvent::Backward;
    case TrainingCall::Grad:
      return TrainingEvent::Grad;
    case TrainingCall::Step:
      return TrainingEvent::Step;
    case TrainingCall::OptimizerZeroGrad:
      return TrainingEvent::ZeroGrad;
    case TrainingCall::ModuleZeroGrad:
      return TrainingEvent::ModuleZeroGrad;
    case TrainingCall::None:
      break;
    }
    llvm::StringRef Name = calleeName(Call);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      const CXXMethodDecl *MD = MC->getMethodDecl();
      if (MD && isOptimizerClass(MD->getParent()))
        return std::nullopt;
      if ((Name == "zero_" || Name == "fill_" || Name == "copy_" || Name == "reset") &&
          isGradAccess(MC->getImplicitObjectArgument()))
        return TrainingEvent::ManualZero;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && isGradAccess(Op->getArg(0)))
        return TrainingEvent::ManualZero;
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || isInLibraryNamespace(FD) || SM.isInSystemHeader(FD->getLocation()))
      return std::nullopt;
    if (!Name.empty() && nameSaysZeroGrad(Name))
      return TrainingEvent::ManualZero;
    return std::nullopt;
  }

  /// \p Call gets a value whose type \p Pred accepts, as an argument or as
  /// the object of a member call.
  static bool getsValue(const CallExpr *Call, llvm::function_ref<bool(QualType)> Pred) {
    for (const Expr *Arg : Call->arguments())
      if (Pred(Arg->getType()))
        return true;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
    return MC && Pred(MC->getImplicitObjectArgument()->getType());
  }

  /// A function defined in another translation unit that gets a value
  /// through which it may zero gradients (as argument or object).
  bool mayZeroInOtherUnit(const CallExpr *Call) const {
    // A forward pass defined elsewhere runs the module, it does not zero it.
    return !isForwardCall(Call) && externalCallee(Call, Ctx) &&
           getsValue(Call, [](QualType T) { return mayReachGradients(T); });
  }

  /// A user function that receives an optimizer (or is called on one).
  std::optional<TrainingEvent::Kind> classifyOpaque(const CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || isInLibraryNamespace(FD) || SM.isInSystemHeader(FD->getLocation()))
      return std::nullopt;
    if (getsValue(Call, isOptimizerLike))
      return TrainingEvent::OpaqueOptimizerUse;
    return std::nullopt;
  }

  /// The variable or field of this body that a helper's \p Inner object
  /// names, through the call \p Call: a parameter maps to the argument, a
  /// member of the helper's object to the same member when the helper is
  /// called on `this`. Null when unknown.
  static const ValueDecl *mapObject(const ValueDecl *Inner, const FunctionDecl *Callee,
                                    const CallExpr *Call) {
    if (!Inner)
      return nullptr;
    if (const auto *PVD = dyn_cast<ParmVarDecl>(Inner)) {
      if (PVD->getDeclContext() != Callee && PVD->getDeclContext() != Callee->getCanonicalDecl())
        return nullptr;
      return namedDecl(argumentFor(Call, PVD->getFunctionScopeIndex()));
    }
    if (isa<FieldDecl>(Inner)) {
      const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
      if (MC && isa<CXXThisExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts()))
        return Inner;
      return nullptr;
    }
    return nullptr; // a local of the helper
  }

public:
  /// The events of the helper \p Def, its body followed CallDepth - 1
  /// levels further (what a call of it contributes here): the table's entry
  /// when it has one, else walked and entered when no cycle of calls can
  /// change them (HelperEventTable).
  HelperEvents helperEvents(const FunctionDecl *Def) {
    auto Key = Walk.key(Def, CallDepth);
    if (const HelperEvents *Known = Walk.Table.lookup(Key)) {
      Walk.Flags.raise(Known->Raised);
      return *Known;
    }
    const WalkFlags Outer = Walk.Flags;
    Walk.Flags = WalkFlags();
    OnPath.insert(Def->getCanonicalDecl());
    HelperEvents H;
    {
      llvm::SmallVector<TrainingEvent, 8> Inner;
      const FunctionFacts &Facts = Walk.Facts(Def);
      EventCollector(Inner, Ctx, CallDepth - 1, Walk).collect(Facts);
      if (!Inner.empty()) {
        llvm::stable_sort(Inner, [&](const TrainingEvent &A, const TrainingEvent &B) {
          return startsBefore(A.Call, B.Call, SM);
        });
        const ParentMap &PM = Facts.parents();
        for (const TrainingEvent &E : Inner) {
          if (E.K == TrainingEvent::OpaqueOptimizerUse) {
            H.Opaque = true;
            break;
          }
          const Stmt *Child = E.Call;
          for (const Stmt *P = PM.getParent(Child); P; Child = P, P = PM.getParent(P))
            if (!alwaysRuns(Child, P, /*ThroughLoops=*/false) || isLoopStmt(P) ||
                isa<LambdaExpr>(P)) {
              H.Opaque = true;
              break;
            }
          if (H.Opaque)
            break;
          H.List.push_back(E);
        }
      }
    }
    OnPath.erase(Def->getCanonicalDecl());
    H.Raised = Walk.Flags;
    // A walk that met a helper on its path, or stopped at the depth limit,
    // may have met a cycle through Def: another caller's path would cut it
    // elsewhere. Any other walk of Def at this depth is this one.
    if (!H.Raised.MetOnPath && !H.Raised.Truncated)
      Walk.Table.enter(Key, H);
    Walk.Flags = Outer;
    Walk.Flags.raise(H.Raised);
    return H;
  }

private:
  /// Adds the events of the helper \p Call runs; false when it runs none.
  bool expand(const CallExpr *Call) {
    const FunctionDecl *Def = followableCallee(Call, Ctx);
    if (!Def)
      return false;
    if (OnPath.contains(Def->getCanonicalDecl())) {
      Walk.Flags.MetOnPath = true;
      return false;
    }
    HelperEvents H = helperEvents(Def);
    if (H.Opaque) {
      Events.push_back(TrainingEvent{TrainingEvent::OpaqueOptimizerUse, Call});
      return true;
    }
    if (H.List.empty())
      return false;
    for (const TrainingEvent &In : H.List) {
      TrainingEvent E{In.K, Call};
      E.ObjectDecl = mapObject(In.ObjectDecl, Def, Call);
      E.Inner = In.Inner ? In.Inner : In.Call;
      E.Via = In.Via ? In.Via : Def;
      E.Linked = In.Linked;
      E.OpaqueClosure = In.OpaqueClosure;
      Events.push_back(E);
    }
    return true;
  }

  /// Adds the events of a helper defined in another translation unit, from
  /// its linked summary; false when it has none (no summary, no event).
  bool expandLinked(const CallExpr *Call) {
    const FunctionDecl *Callee = externalCallee(Call, Ctx);
    if (!Callee)
      return false;
    Walk.Flags.CallsOtherUnits = true;
    const FunctionSummary *S = Walk.Linked ? Walk.Linked(Callee) : nullptr;
    llvm::StringRef Kinds = S ? S->loopEventsAt(CallDepth) : llvm::StringRef();
    if (Kinds.empty())
      return false;
    llvm::SmallVector<TrainingEvent, 4> Linked;
    for (char C : Kinds) {
      std::optional<TrainingEvent::Kind> K = decodeEvent(C);
      if (!K || C == 'O') {
        Linked.clear();
        Linked.push_back(TrainingEvent{TrainingEvent::OpaqueOptimizerUse, Call});
        break;
      }
      TrainingEvent E{*K, Call};
      E.Linked = Callee;
      E.OpaqueClosure = C == 'C';
      Linked.push_back(E);
    }
    Events.append(Linked.begin(), Linked.end());
    return true;
  }

  llvm::SmallVectorImpl<TrainingEvent> &Events;
  const ASTContext &Ctx;
  const SourceManager &SM;
  unsigned CallDepth;
  llvm::SmallPtrSetImpl<const FunctionDecl *> &OnPath;
  WalkState &Walk;
};

} // namespace

/// The loops that spell \p S (body, condition or increment; not a for's init
/// or a range-for's range), innermost first, looking through lambdas.
static llvm::SmallVector<const Stmt *, 4> loopChain(const Stmt *S, const ParentMap &PM,
                                                    const Stmt *StopAt) {
  llvm::SmallVector<const Stmt *, 4> Chain;
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != StopAt; Child = P, P = PM.getParent(P)) {
    if (!isLoopStmt(P))
      continue;
    if (const auto *For = dyn_cast<ForStmt>(P); For && Child == For->getInit())
      continue;
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(P);
        RF && Child != RF->getBody() && Child != RF->getLoopVarStmt())
      continue;
    Chain.push_back(P);
  }
  return Chain;
}

bool TrainingLoop::hasEvent(TrainingEvent::Kind K) const {
  return llvm::any_of(Events, [K](const TrainingEvent &E) { return E.K == K; });
}

bool TrainingLoop::zeroesGradients() const {
  return llvm::any_of(Events, [](const TrainingEvent &E) { return E.zeroes(); });
}

TrainingLoopAnalysis::~TrainingLoopAnalysis() = default;

std::unique_ptr<TrainingLoopAnalysis>
TrainingLoopAnalysis::withoutSteps(const Stmt *FunctionBody, ASTContext &Ctx, bool FollowsNoCall) {
  std::unique_ptr<TrainingLoopAnalysis> A(new TrainingLoopAnalysis(FunctionBody, Ctx, NoWalk{}));
  A->FollowsNoCall = FollowsNoCall;
  return A;
}

TrainingLoopAnalysis::TrainingLoopAnalysis(const FunctionFacts &Own, FactsRef Facts,
                                           HelperEventTable &Table, ASTContext &Ctx,
                                           unsigned CallDepth, LinkedLookup Linked)
    : Body(Own.body()), Ctx(Ctx) {
  const Stmt *FunctionBody = Body;
  const SourceManager &SM = Ctx.getSourceManager();
  WalkState Walk(Facts, Table);
  Walk.Linked = std::move(Linked);
  EventCollector(AllEvents, Ctx, CallDepth, Walk).collect(Own);
  CallsOtherUnits = Walk.Flags.CallsOtherUnits;
  FollowsNoCall = CallDepth == 0 && !Walk.Flags.Truncated && !Walk.Flags.MeetsOtherUnits;
  bool HasBackward = false, HasStep = false;
  for (const TrainingEvent &E : AllEvents) {
    HasBackward |= E.K == TrainingEvent::Backward || E.K == TrainingEvent::Grad;
    HasStep |= E.K == TrainingEvent::Step;
  }
  if (!HasBackward || !HasStep)
    return;
  llvm::stable_sort(AllEvents, [&](const TrainingEvent &A, const TrainingEvent &B) {
    return startsBefore(A.Call, B.Call, SM);
  });
  PM = &Own.parents();

  llvm::SmallVector<llvm::SmallVector<const Stmt *, 4>, 16> Chains;
  for (const TrainingEvent &E : AllEvents)
    Chains.push_back(loopChain(E.Call, *PM, FunctionBody));

  // The innermost loop common to some backward and some step.
  llvm::SmallVector<const Stmt *, 4> Candidates;
  for (size_t B = 0; B < AllEvents.size(); ++B) {
    if (AllEvents[B].K != TrainingEvent::Backward && AllEvents[B].K != TrainingEvent::Grad)
      continue;
    for (size_t S = 0; S < AllEvents.size(); ++S) {
      if (AllEvents[S].K != TrainingEvent::Step)
        continue;
      for (const Stmt *L : Chains[B])
        if (llvm::is_contained(Chains[S], L)) {
          if (!llvm::is_contained(Candidates, L))
            Candidates.push_back(L);
          break;
        }
    }
  }
  // A loop around a training loop is its epoch loop, not a training loop.
  for (const Stmt *L : Candidates) {
    bool Encloses = llvm::any_of(Candidates, [&](const Stmt *Other) {
      return Other != L && isDescendant(Other, L, *PM);
    });
    if (Encloses)
      continue;
    TrainingLoop TL;
    TL.Loop = L;
    TL.Body = loopBody(L);
    TL.EpochLoop = enclosingLoop(L, *PM, FunctionBody);
    for (size_t I = 0; I < AllEvents.size(); ++I) {
      if (!llvm::is_contained(Chains[I], L))
        continue;
      TrainingEvent E = AllEvents[I];
      E.InLambda = isInLambdaBelow(E.Call, L, *PM);
      TL.Events.push_back(E);
    }
    Loops.push_back(std::move(TL));
  }
  for (TrainingLoop &TL : Loops)
    for (const TrainingEvent &E : TL.Events) {
      if (E.K != TrainingEvent::Step)
        continue;
      bool Seen = E.ObjectDecl && llvm::any_of(TL.OptimizerSteps, [&](const TrainingEvent *O) {
                    return O->ObjectDecl == E.ObjectDecl;
                  });
      if (!Seen)
        TL.OptimizerSteps.push_back(&E);
    }
}

const TrainingLoop *TrainingLoopAnalysis::trainingLoopOf(const Stmt *S) const {
  if (!PM)
    return nullptr;
  for (const Stmt *L : loopChain(S, *PM, Body))
    for (const TrainingLoop &TL : Loops)
      if (TL.Loop == L)
        return &TL;
  return nullptr;
}

/// True when \p Child, a child of \p Parent, runs whenever \p Parent does.
static bool alwaysRuns(const Stmt *Child, const Stmt *Parent, bool ThroughLoops) {
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return Child == If->getCond() || Child == If->getInit() ||
           Child == If->getConditionVariableDeclStmt();
  if (const auto *Switch = dyn_cast<SwitchStmt>(Parent))
    return Child == Switch->getCond() || Child == Switch->getInit() ||
           Child == Switch->getConditionVariableDeclStmt();
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Parent))
    return Child == CO->getCond() ||
           (isa<BinaryConditionalOperator>(CO) &&
            Child == cast<BinaryConditionalOperator>(CO)->getCommon());
  if (const auto *BO = dyn_cast<BinaryOperator>(Parent))
    return !BO->isLogicalOp() || Child == BO->getLHS();
  if (isa<LambdaExpr, CXXCatchStmt, CaseStmt, DefaultStmt>(Parent))
    return false;
  if (isLoopStmt(Parent)) {
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      if (Child == For->getInit() || Child == For->getCond())
        return true;
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(Parent))
      if (Child != RF->getBody())
        return true;
    if (const auto *W = dyn_cast<WhileStmt>(Parent); W && Child == W->getCond())
      return true;
    if (isa<DoStmt>(Parent))
      return true; // a do body runs at least once
    return ThroughLoops;
  }
  return true;
}

bool TrainingLoopAnalysis::runsEveryIteration(const Stmt *S, const TrainingLoop &Loop,
                                              bool ThroughNestedLoops) const {
  if (!PM)
    return false;
  const Stmt *Child = S;
  for (const Stmt *P = PM->getParent(S); P; Child = P, P = PM->getParent(P)) {
    if (Child == Loop.Body)
      return true;
    if (P == Loop.Loop)
      return false; // condition or increment
    if (!alwaysRuns(Child, P, ThroughNestedLoops))
      return false;
  }
  return false;
}

const IfStmt *TrainingLoopAnalysis::enclosingIf(const Stmt *S, const TrainingLoop &Loop) const {
  if (!PM)
    return nullptr;
  const Stmt *Child = S;
  for (const Stmt *P = PM->getParent(S); P && Child != Loop.Body; Child = P, P = PM->getParent(P))
    if (const auto *If = dyn_cast<IfStmt>(P))
      if (Child == If->getThen() || Child == If->getElse())
        return If;
  return nullptr;
}

/// True when every statement between \p S and \p Top runs whenever \p Top
/// does, without nested loops (bare blocks are fine).
static bool straightBelow(const Stmt *S, const Stmt *Top, const ParentMap &PM) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != Top; Child = P, P = PM.getParent(P))
    if (!alwaysRuns(Child, P, /*ThroughLoops=*/false) || isLoopStmt(P))
      return false;
  return Child == Top;
}

llvm::SmallVector<const TrainingEvent *, 4>
TrainingLoopAnalysis::straightLineNeighbours(const TrainingEvent &E, const TrainingLoop &Loop,
                                             bool Forward) const {
  llvm::SmallVector<const TrainingEvent *, 4> Result;
  if (!PM || E.InLambda)
    return Result;
  // Events of the same helper call come first: they run right before or after.
  if (E.Inner) {
    const TrainingEvent *Begin = Loop.Events.begin(), *End = Loop.Events.end();
    const TrainingEvent *Self = &E;
    if (Self >= Begin && Self < End) {
      if (Forward) {
        for (const TrainingEvent *O = Self + 1; O < End && O->Call == E.Call; ++O)
          Result.push_back(O);
      } else {
        for (const TrainingEvent *O = Self; O > Begin && (O - 1)->Call == E.Call;)
          Result.push_back(--O);
      }
    }
  }
  // Climb to the statement of a block that holds E, then scan that block's
  // siblings; when a block is exhausted, continue in the block around it if
  // the way up only crosses an if-branch or a bare block.
  const Stmt *Child = E.Call;
  const Stmt *P = PM->getParent(Child);
  while (P && !isa<CompoundStmt>(P)) {
    if (!alwaysRuns(Child, P, false) || isLoopStmt(P))
      return Result;
    Child = P;
    P = PM->getParent(P);
  }
  while (const auto *Block = dyn_cast_or_null<CompoundStmt>(P)) {
    llvm::SmallVector<const Stmt *, 16> Siblings(Block->body_begin(), Block->body_end());
    auto *It = llvm::find(Siblings, Child);
    if (It == Siblings.end())
      return Result;
    auto Visit = [&](const Stmt *T) -> bool { // false: stop
      llvm::SmallVector<const TrainingEvent *, 4> Here;
      for (const TrainingEvent &Other : Loop.Events) {
        if (&Other == &E || !isDescendant(Other.Call, T, *PM))
          continue;
        if (Other.InLambda || !straightBelow(Other.Call, T, *PM))
          return false;
        Here.push_back(&Other);
      }
      if (!Forward)
        std::reverse(Here.begin(), Here.end());
      Result.append(Here.begin(), Here.end());
      return true;
    };
    if (Forward) {
      for (auto *S = std::next(It); S != Siblings.end(); ++S)
        if (!Visit(*S))
          return Result;
    } else {
      for (auto *S = It; S != Siblings.begin();)
        if (!Visit(*--S))
          return Result;
    }
    if (Block == Loop.Body)
      return Result;
    // Up to the next enclosing block, through if-branches and bare blocks.
    Child = Block;
    P = PM->getParent(Child);
    while (P && !isa<CompoundStmt>(P)) {
      if (isLoopStmt(P) || isa<LambdaExpr, SwitchStmt, CXXCatchStmt>(P))
        return Result;
      if (const auto *If = dyn_cast<IfStmt>(P); !If && !isa<CXXTryStmt>(P))
        return Result;
      Child = P;
      P = PM->getParent(P);
    }
  }
  return Result;
}

/// The K of a counter test in \p Cond: `x % K` anywhere in it, or
/// `[++]count[++] ==/>=/> K` with `count = 0` in \p Then.
static const Expr *counterPeriod(const Expr *Cond, const Stmt *Then) {
  llvm::SmallVector<const Stmt *, 8> Work{Cond};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S || isa<LambdaExpr>(S))
      continue;
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->getOpcode() == BO_Rem)
      return BO->getRHS();
    for (const Stmt *C : S->children())
      Work.push_back(C);
  }
  const auto *Cmp = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!Cmp || !(Cmp->getOpcode() == BO_EQ || Cmp->getOpcode() == BO_GE ||
                Cmp->getOpcode() == BO_GT))
    return nullptr;
  const Expr *Counter = Cmp->getLHS()->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(Counter); UO && UO->isIncrementOp())
    Counter = UO->getSubExpr()->IgnoreParenImpCasts();
  const ValueDecl *CounterDecl = namedDecl(Counter);
  if (!CounterDecl)
    return nullptr;
  // The counter is reset in the branch.
  llvm::SmallVector<const Stmt *, 8> Body{Then};
  while (!Body.empty()) {
    const Stmt *S = Body.pop_back_val();
    if (!S)
      continue;
    if (const auto *Assign = dyn_cast<BinaryOperator>(S);
        Assign && Assign->getOpcode() == BO_Assign &&
        namedDecl(Assign->getLHS()) == CounterDecl)
      return Cmp->getRHS();
    for (const Stmt *C : S->children())
      Body.push_back(C);
  }
  return nullptr;
}

std::optional<ConditionalStep>
TrainingLoopAnalysis::conditionalStep(const TrainingLoop &Loop) const {
  std::optional<ConditionalStep> Result;
  bool AnyStep = false;
  for (const TrainingEvent &E : Loop.Events) {
    if (E.K != TrainingEvent::Step || E.InLambda)
      continue;
    AnyStep = true;
    const IfStmt *If = enclosingIf(E.Call, Loop);
    if (!If || !isDescendant(E.Call, If->getThen(), *PM))
      return std::nullopt;
    const Expr *Period = counterPeriod(If->getCond(), If->getThen());
    if (!Period)
      return std::nullopt;
    if (!Result)
      Result = ConditionalStep{If, Period};
  }
  if (!AnyStep)
    return std::nullopt;
  bool BackwardEveryIteration = llvm::any_of(Loop.Events, [&](const TrainingEvent &E) {
    return E.K == TrainingEvent::Backward && !E.InLambda &&
           runsEveryIteration(E.Call, Loop, /*ThroughNestedLoops=*/false);
  });
  if (!BackwardEveryIteration)
    return std::nullopt;
  return Result;
}

bool stepHasOpaqueClosure(const TrainingEvent &Step) {
  if (Step.Linked)
    return Step.OpaqueClosure;
  return hasOpaqueClosure(Step.Inner ? Step.Inner : Step.Call);
}

/// One letter per event (FunctionSummary::LoopEvents); "O" when opaque.
static std::string encodeHelperEvents(const HelperEvents &H) {
  if (H.Opaque)
    return "O";
  std::string Out;
  for (const TrainingEvent &E : H.List) {
    if (E.Linked)
      return "O"; // never met: a summary's walk has no linked summaries
    switch (E.K) {
    case TrainingEvent::Backward:
      Out += 'B';
      break;
    case TrainingEvent::Grad:
      Out += 'G';
      break;
    case TrainingEvent::Step:
      Out += stepHasOpaqueClosure(E) ? 'C' : 'S';
      break;
    case TrainingEvent::ZeroGrad:
      Out += 'Z';
      break;
    case TrainingEvent::ModuleZeroGrad:
      Out += 'M';
      break;
    case TrainingEvent::ManualZero:
      Out += 'X';
      break;
    case TrainingEvent::OpaqueOptimizerUse:
      return "O";
    }
  }
  return Out;
}

std::vector<std::string> helperLoopEvents(const FunctionDecl *Def, ASTContext &Ctx,
                                          TrainingLoopAnalysis::FactsRef Facts,
                                          HelperEventTable &Table) {
  std::vector<std::string> Out;
  if (!Def || !isa_and_nonnull<CompoundStmt>(Def->getBody()))
    return Out;
  for (unsigned Depth = 1; Depth <= MaxSummaryDepth; ++Depth) {
    WalkState Walk(Facts, Table);
    Walk.Summarising = true;
    llvm::SmallVector<TrainingEvent, 1> None;
    HelperEvents H = EventCollector(None, Ctx, Depth, Walk).helperEvents(Def);
    Out.push_back(encodeHelperEvents(H));
    if (!Walk.Flags.Truncated)
      break; // deeper callers see the same
  }
  normaliseLoopEvents(Out);
  return Out;
}

} // namespace clang::tidy::torch_check
