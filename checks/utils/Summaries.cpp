//===--- Summaries.cpp - libtorch-tidy ------------------------------------===//

#include "Summaries.h"
#include "ASTHelpers.h"
#include "FunctionFacts.h"
#include "Syncs.h"
#include "TorchNames.h"

#include "CallGraph.h"
#include "Traversal.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>

namespace clang::tidy::torch_check {

std::string usrOf(const Decl *D) {
  llvm::SmallString<128> Buf;
  if (!D || index::generateUSRForDecl(D, Buf))
    return {};
  return std::string(Buf);
}

// ---- the table --------------------------------------------------------------

const FunctionSummary *SummaryTable::lookup(const FunctionDecl *FD) const {
  auto It = ByKey.find(key(FD));
  return It == ByKey.end() ? nullptr : &Storage[It->second];
}

const FunctionSummary *SummaryTable::lookup(llvm::StringRef USR) const {
  auto It = ByUSR.find(USR);
  return It == ByUSR.end() ? nullptr : &Storage[It->second];
}

const CallExpr *SummaryTable::firstUnguardedForward(const FunctionDecl *FD,
                                                    unsigned MaxDepth) const {
  auto It = ByKey.find(key(FD));
  return It == ByKey.end() ? nullptr : FirstForward[It->second][std::min(MaxDepth, MaxSummaryDepth)];
}

SummaryTable::SyncSite SummaryTable::everyCallSync(const FunctionDecl *FD,
                                                   unsigned MaxDepth) const {
  auto It = ByKey.find(key(FD));
  return It == ByKey.end() ? SyncSite{}
                           : EveryCallSync[It->second][std::min(MaxDepth, MaxSummaryDepth)];
}

void SummaryTable::clear() {
  ResultToBackward.clear();
  Uses.clear();
  Storage.clear();
  FirstForward.clear();
  EveryCallSync.clear();
  ByKey.clear();
  ByUSR.clear();
  Order.clear();
}

llvm::json::Value SummaryTable::toJSON() const {
  std::vector<const FunctionSummary *> Sorted;
  for (const FunctionSummary &S : Storage)
    Sorted.push_back(&S);
  llvm::sort(Sorted, [](const FunctionSummary *A, const FunctionSummary *B) {
    return A->USR < B->USR;
  });
  llvm::json::Array A;
  for (const FunctionSummary *S : Sorted)
    A.push_back(torch_check::toJSON(*S));
  return A;
}

SummaryDocument SummaryTable::document() const {
  SummaryDocument Doc;
  for (const FunctionSummary &S : Storage)
    if (!S.USR.empty()) {
      auto [It, Inserted] = Doc.Functions.try_emplace(S.USR, S);
      if (!Inserted)
        mergeSummary(It->second, S);
    }
  Doc.ResultReachesBackward = ResultToBackward;
  Doc.Uses = Uses;
  return Doc;
}

bool syncsOnEveryCall(const Fact &Sync, const FunctionFacts &F, ASTContext &Ctx) {
  const auto *Call = dyn_cast<CallExpr>(Sync.S);
  return Sync.K == Fact::Sync && Call && !Sync.InLambda &&
         habitualSync(Call, F.body(), F.parents()) != SyncKind::None &&
         runsOnEveryCall(Call, F.body(), F.parents(), Ctx.getSourceManager());
}

bool syncsOnEveryCallThrough(const CallExpr *Call, const FunctionSummary &Callee,
                             const FunctionFacts &F, ASTContext &Ctx) {
  return Callee.SyncEveryCall != NotReached && !valueDecidesControlFlow(Call, F.body(), F.parents()) &&
         runsOnEveryCall(Call, F.body(), F.parents(), Ctx.getSourceManager());
}

namespace {
/// The variable declarations, assignments and calls of other files'
/// functions of a body and of the lambdas it runs itself
/// (FunctionFacts::runsLambda; their bodies, not their captures or
/// parameters), and the body's returned values (not a lambda's), for the
/// parameter flows. Read from the facts' nodes; the USRs of every function
/// of another file the body calls (its lambdas' calls included, run or not)
/// go into \p Uses on the way.
struct BodyFlows {
  /// Calls of functions defined in another translation unit.
  llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 4> External;
  /// Virtual calls of the user's methods (an interface's): which override
  /// runs is not known here, but what the caller does with the result is.
  llvm::SmallVector<std::pair<const CallExpr *, const FunctionDecl *>, 2> Virtual;
  llvm::SmallVector<std::pair<const ValueDecl *, const Expr *>, 16> Defs;
  llvm::SmallVector<const Expr *, 4> Returns;

  BodyFlows(const ASTContext &Ctx, const FunctionFacts &F, std::set<std::string> &Uses) {
    llvm::ArrayRef<FunctionFacts::Node> Nodes = F.nodes();
    // A lambda's nodes are its captures and parameters, then its body (the
    // walk's order): where its body starts, and whether the body runs it
    // (it is run, and spelled in the body of a lambda that runs, if any).
    struct LambdaInfo {
      size_t BodyStart = SIZE_MAX;
      bool Runs = false;
    };
    llvm::DenseMap<const LambdaExpr *, LambdaInfo> Lambdas;
    auto Counts = [&](const FunctionFacts::Node &N, size_t I) {
      if (!N.Lambda)
        return true;
      const LambdaInfo &In = Lambdas[N.Lambda];
      return In.Runs && I >= In.BodyStart;
    };
    for (size_t I = 0; I < Nodes.size(); ++I) {
      const FunctionFacts::Node &N = Nodes[I];
      if (N.S && N.Lambda && N.S == N.Lambda->getBody())
        Lambdas[N.Lambda].BodyStart = I;
      if (const auto *L = dyn_cast_or_null<LambdaExpr>(N.S))
        Lambdas[L].Runs = Counts(N, I) && F.runsLambda(L);
      const auto *C = dyn_cast_or_null<CallExpr>(N.S);
      const FunctionDecl *Ext = C ? externalCallee(C, Ctx) : nullptr;
      if (Ext)
        if (std::string U = usrOf(Ext); !U.empty())
          Uses.insert(std::move(U));
      if (!Counts(N, I))
        continue;
      if (N.Var) {
        if (N.Var->getInit() && !isa<ParmVarDecl>(N.Var))
          Defs.push_back({N.Var, N.Var->getInit()});
      } else if (const auto *BO = dyn_cast<BinaryOperator>(N.S)) {
        if (BO->isAssignmentOp())
          if (const ValueDecl *V = namedVariable(BO->getLHS()))
            Defs.push_back({V, BO->getRHS()});
      } else if (C) {
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(C);
            Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
          if (const ValueDecl *V = namedVariable(Op->getArg(0)))
            Defs.push_back({V, Op->getArg(1)});
        if (Ext)
          External.push_back({C, Ext});
        else if (const FunctionDecl *Callee = C->getDirectCallee();
                 Callee && isVirtualDispatch(C) && isUserFunction(Callee, Ctx))
          Virtual.push_back({C, Callee->getCanonicalDecl()});
      } else if (const auto *R = dyn_cast<ReturnStmt>(N.S)) {
        if (R->getRetValue() && !N.Lambda)
          Returns.push_back(R->getRetValue());
      }
    }
  }
};

bool containsStmt(const Stmt *S, const Stmt *Target) {
  return anyStmt(S, [&](const Stmt *X) { return X == Target; });
}

/// The calls between the functions being summarised, as the summaries
/// compose them (the facts' UserCall sites, lambdas included), for the
/// bottom-up order: callees before callers, each strongly connected
/// component of mutual calls together.
struct CallOrder {
  struct Node {
    const FunctionDecl *FD = nullptr; ///< canonical; null for the entry node
    llvm::SmallVector<Node *, 4> Callees;
  };
  Node Entry;
  std::vector<std::unique_ptr<Node>> Nodes;
};

} // namespace
} // namespace clang::tidy::torch_check

template <> struct llvm::GraphTraits<clang::tidy::torch_check::CallOrder::Node *> {
  using NodeRef = clang::tidy::torch_check::CallOrder::Node *;
  using ChildIteratorType = llvm::SmallVectorImpl<NodeRef>::iterator;
  static NodeRef getEntryNode(NodeRef N) { return N; }
  static ChildIteratorType child_begin(NodeRef N) { return N->Callees.begin(); }
  static ChildIteratorType child_end(NodeRef N) { return N->Callees.end(); }
};

namespace clang::tidy::torch_check {

void SummaryTable::build(llvm::ArrayRef<const FunctionDecl *> Functions, ASTContext &Ctx,
                         FactsLookup FactsOf, DomainFn Domain, const SummaryDocument *External) {
  clear();
  // The order: the calls the summaries compose (UserCall facts), every
  // function an entry.
  CallOrder Graph;
  llvm::DenseMap<const FunctionDecl *, CallOrder::Node *> NodeOf;
  for (const FunctionDecl *FD : Functions) {
    CallOrder::Node *&N = NodeOf[FD->getCanonicalDecl()];
    if (N)
      continue;
    Graph.Nodes.push_back(std::make_unique<CallOrder::Node>());
    N = Graph.Nodes.back().get();
    N->FD = FD->getCanonicalDecl();
    Graph.Entry.Callees.push_back(N);
  }
  for (const FunctionDecl *FD : Functions) {
    CallOrder::Node *Caller = NodeOf.lookup(FD->getCanonicalDecl());
    for (const Fact *Call : FactsOf(FD).of(Fact::UserCall))
      if (CallOrder::Node *Callee =
              Call->Callee ? NodeOf.lookup(Call->Callee->getCanonicalDecl()) : nullptr;
          Callee && !llvm::is_contained(Caller->Callees, Callee))
        Caller->Callees.push_back(Callee);
  }

  llvm::SmallPtrSet<const FunctionDecl *, 32> Done;

  auto Summarise = [&](const FunctionDecl *FD,
                       const llvm::SmallPtrSetImpl<const FunctionDecl *> &SameSCC) {
    const FunctionFacts &F = FactsOf(FD);
    const FunctionDecl *Key = key(FD);
    FunctionSummary S;
    S.USR = usrOf(Key);
    S.Name = Key->getQualifiedNameAsString();
    S.Params.resize(FD->getNumParams());

    BodyFlows Flows(Ctx, F, Uses);
    // The variables computed from each parameter (flow-insensitive).
    std::vector<llvm::SmallPtrSet<const ValueDecl *, 8>> From(FD->getNumParams());
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      From[I].insert(FD->getParamDecl(I));
      for (bool Changed = true; Changed;) {
        Changed = false;
        for (const auto &[V, E] : Flows.Defs)
          if (!From[I].contains(V) && refersToAny(E, From[I]))
            Changed |= From[I].insert(V).second;
      }
    }
    auto Params = [&](const Stmt *E, bool ParameterSummary::*Flag) {
      if (!E)
        return;
      for (unsigned I = 0; I < From.size(); ++I)
        if (refersToAny(E, From[I]))
          S.Params[I].*Flag = true;
    };

    // Where UnguardedForward comes from (firstUnguardedForward): the body's
    // first unguarded forward pass, and the unguarded calls it may come
    // through: to a callee of this unit (its index in Storage) or to
    // another file's function (its linked summary).
    const CallExpr *OwnForward = nullptr;
    struct Through {
      const CallExpr *Call;
      unsigned Index;
      const FunctionSummary *Linked; ///< null: the callee is Storage[Index]
    };
    llvm::SmallVector<Through, 4> LocalThrough, ExternalThrough;
    // Where SyncEveryCall comes from (everyCallSync): the body's first
    // synchronisation on every call, else the calls of this unit's functions
    // that synchronise on every call, in the facts' order.
    SyncSite OwnSync;
    llvm::SmallVector<unsigned, 2> SyncThrough;

    for (const Fact &Fc : F.all()) {
      // A lambda's facts count where the body runs the lambda itself (its
      // grad-mode guards stay its own).
      if (Fc.InLambda && (!Fc.S || !F.runsInBody(Fc.S) || Fc.K == Fact::GradOff ||
                          Fc.K == Fact::GradUnknown))
        continue;
      switch (Fc.K) {
      case Fact::Forward:
        if (!F.isGuarded(Fc.S) && !F.runsFrozen(Fc.S)) {
          S.UnguardedForward = 0;
          if (!OwnForward)
            OwnForward = dyn_cast<CallExpr>(Fc.S);
        }
        S.Forward = 0;
        break;
      case Fact::Loss:
        S.Forward = 0;
        break;
      case Fact::Backward:
      case Fact::Grad:
        S.Backward = 0;
        Params(Fc.Object, &ParameterSummary::ReachesBackward);
        break;
      case Fact::Step:
        S.Step = 0;
        break;
      case Fact::ZeroGrad:
        S.ZeroGrad = 0;
        break;
      case Fact::Train:
        S.Train = 0;
        break;
      case Fact::Eval:
        S.Eval = 0;
        break;
      case Fact::Sync:
        S.Sync = 0;
        if (syncsOnEveryCall(Fc, F, Ctx)) {
          S.SyncEveryCall = 0;
          if (!OwnSync.Sync)
            OwnSync = {cast<CallExpr>(Fc.S), FD};
        }
        break;
      case Fact::GradOff:
      case Fact::GradUnknown:
        S.DisablesGrad = true;
        break;
      case Fact::InPlace:
      case Fact::IndexedAssign:
        if (const auto *P = dyn_cast_or_null<ParmVarDecl>(Fc.ObjectDecl))
          if (P->getFunctionScopeIndex() < S.Params.size())
            S.Params[P->getFunctionScopeIndex()].WrittenInPlace = true;
        break;
      case Fact::ContainerInsert:
        Params(Fc.Value, &ParameterSummary::Inserted);
        break;
      case Fact::UserCall: {
        if (!Fc.Definition || SameSCC.contains(Fc.Definition->getCanonicalDecl()))
          break; // recursion adds no path
        auto Known = ByKey.find(key(Fc.Callee));
        if (Known == ByKey.end())
          break;
        const unsigned CalleeIndex = Known->second;
        const FunctionSummary *CS = &Storage[CalleeIndex];
        // A call under a guard, or on a module whose parameters are frozen,
        // brings no unguarded forward pass.
        const bool CallGuarded = F.isGuarded(Fc.S) || F.runsFrozen(Fc.S);
        absorbCall(S, *CS, 0, CallGuarded ? NotReached : 0);
        if (!CallGuarded)
          LocalThrough.push_back({cast<CallExpr>(Fc.S), CalleeIndex, nullptr});
        if (syncsOnEveryCallThrough(cast<CallExpr>(Fc.S), *CS, F, Ctx)) {
          lowerLevel(S.SyncEveryCall, deeperLevel(CS->SyncEveryCall));
          SyncThrough.push_back(CalleeIndex);
        }
        // The calls of other units' functions it makes, one level deeper.
        for (const auto &[USR, Ext] : CS->ExternalCalls) {
          if (deeperLevel(Ext.Level) == NotReached)
            continue;
          ExternalCall &Mine = S.ExternalCalls[USR];
          lowerLevel(Mine.Level, deeperLevel(Ext.Level));
          if (!CallGuarded)
            lowerLevel(Mine.UnguardedLevel, deeperLevel(Ext.UnguardedLevel));
        }
        const auto *Call = cast<CallExpr>(Fc.S);
        for (unsigned J = 0; J < CS->Params.size(); ++J) {
          const Expr *Arg = argumentFor(Call, J);
          const ParameterSummary &CP = CS->Params[J];
          if (CP.ReachesBackward)
            Params(Arg, &ParameterSummary::ReachesBackward);
          if (CP.WrittenInPlace)
            Params(Arg, &ParameterSummary::WrittenInPlace);
          if (CP.Inserted)
            Params(Arg, &ParameterSummary::Inserted);
        }
        break;
      }
      default:
        break;
      }
    }
    for (const Expr *R : Flows.Returns)
      Params(R, &ParameterSummary::Returned);

    // Whether the result of a call of another file's function (or of a
    // virtual method) reaches a backward pass here (the callers' side).
    auto recordResultToBackward = [&](const CallExpr *Call, const FunctionDecl *Callee) {
      // The variables computed from the call's result (flow-insensitive).
      llvm::SmallPtrSet<const ValueDecl *, 8> Derived;
      for (bool Changed = true; Changed;) {
        Changed = false;
        for (const auto &[V, E] : Flows.Defs)
          if (!Derived.contains(V) && (containsStmt(E, Call) || refersToAny(E, Derived)))
            Changed |= Derived.insert(V).second;
      }
      auto Reaches = [&](const Stmt *E) {
        return E && (containsStmt(E, Call) || refersToAny(E, Derived));
      };
      bool ToBackward = false;
      for (const Fact &Fc : F.all()) {
        if (Fc.InLambda && (!Fc.S || !F.runsInBody(Fc.S)))
          continue;
        if ((Fc.K == Fact::Backward || Fc.K == Fact::Grad) && Reaches(Fc.Object))
          ToBackward = true;
        if (Fc.K == Fact::UserCall && Fc.Definition &&
            !SameSCC.contains(Fc.Definition->getCanonicalDecl()))
          if (const FunctionSummary *CS = lookup(Fc.Callee))
            for (unsigned J = 0; J < CS->Params.size(); ++J)
              if (CS->Params[J].ReachesBackward && Reaches(argumentFor(cast<CallExpr>(Fc.S), J)))
                ToBackward = true;
        if (ToBackward)
          break;
      }
      if (ToBackward)
        if (std::string U = usrOf(Callee); !U.empty())
          ResultToBackward.insert(U);
    };
    // Calls of functions defined in another translation unit: their linked
    // summaries (levels one deeper, like a callee here), and whether their
    // result reaches a backward pass here (the callers' side).
    for (const auto &[Call, Callee] : Flows.External) {
      const bool CallGuarded = F.isGuarded(Call) || F.runsFrozen(Call);
      if (External)
        if (const FunctionSummary *CS = External->lookup(usrOf(Callee))) {
          absorbCall(S, *CS, 0, CallGuarded ? NotReached : 0);
          if (!CallGuarded)
            ExternalThrough.push_back({Call, 0, CS});
          if (syncsOnEveryCallThrough(Call, *CS, F, Ctx))
            lowerLevel(S.SyncEveryCall, deeperLevel(CS->SyncEveryCall));
        }
      // Recorded for linking (SummaryDocument::composeCalls).
      if (std::string U = usrOf(Callee); !U.empty()) {
        ExternalCall &Mine = S.ExternalCalls[U];
        Mine.Level = 0;
        if (!CallGuarded)
          Mine.UnguardedLevel = 0;
      }
      recordResultToBackward(Call, Callee);
    }
    for (const auto &[Call, Callee] : Flows.Virtual)
      recordResultToBackward(Call, Callee);
    if (Domain)
      Domain(FD, F, S);

    // The site for each depth: the body's own, else the one of the first
    // call (in the body's order) whose callee reaches one a level less deep.
    ForwardSites Sites{};
    if (OwnForward) {
      Sites.fill(OwnForward);
    } else if (S.UnguardedForward != NotReached) {
      llvm::SmallVector<Through, 4> Calls(LocalThrough);
      Calls.append(ExternalThrough.begin(), ExternalThrough.end());
      if (!LocalThrough.empty() && !ExternalThrough.empty()) {
        // Two walks met the calls: order them as the facts' walk did.
        llvm::DenseMap<const CallExpr *, unsigned> Position;
        for (const auto &Called : F.userFunctionCalls())
          Position.try_emplace(Called.first, Position.size());
        auto At = [&](const Through &T) {
          auto It = Position.find(T.Call);
          return It == Position.end() ? ~0u : It->second;
        };
        llvm::stable_sort(Calls, [&](const Through &A, const Through &B) { return At(A) < At(B); });
      }
      for (const Through &T : Calls)
        for (unsigned D = 1; D <= MaxSummaryDepth; ++D)
          if (!Sites[D])
            Sites[D] = !T.Linked ? FirstForward[T.Index][D - 1]
                       : FunctionSummary::reaches(T.Linked->UnguardedForward, D - 1) ? T.Call
                                                                                    : nullptr;
    }
    assert(llvm::all_of(llvm::seq(0u, MaxSummaryDepth + 1), [&](unsigned D) {
      return !Sites[D] == !FunctionSummary::reaches(S.UnguardedForward, D);
    }));

    SyncSites Syncs{};
    if (OwnSync.Sync)
      Syncs.fill(OwnSync);
    else
      for (unsigned Index : SyncThrough)
        for (unsigned D = 1; D <= MaxSummaryDepth; ++D)
          if (!Syncs[D].Sync)
            Syncs[D] = EveryCallSync[Index][D - 1];

    // Instantiations of one pattern share its key and merge.
    if (auto It = ByKey.find(Key); It != ByKey.end()) {
      mergeSummary(Storage[It->second], S);
      ForwardSites &Kept = FirstForward[It->second];
      SyncSites &KeptSyncs = EveryCallSync[It->second];
      for (unsigned D = 0; D <= MaxSummaryDepth; ++D) {
        if (!Kept[D])
          Kept[D] = Sites[D];
        if (!KeptSyncs[D].Sync)
          KeptSyncs[D] = Syncs[D];
      }
      return;
    }
    ByKey[Key] = Storage.size();
    if (!S.USR.empty())
      ByUSR[S.USR] = Storage.size();
    Storage.push_back(std::move(S));
    FirstForward.push_back(Sites);
    EveryCallSync.push_back(Syncs);
    Order.push_back(Key);
  };

  // A cycle of calls (recursion): each member was summarised without the
  // calls of the others; now their effects' levels flow around the cycle,
  // one more level per call, until none falls (levels only fall and stop at
  // MaxSummaryDepth, so this ends). The flags, parameters and loop events
  // stay those of each body with its calls out of the cycle.
  auto RelaxCycle = [&](const llvm::SmallPtrSetImpl<const FunctionDecl *> &Members) {
    for (bool Fell = true; Fell;) {
      Fell = false;
      for (const FunctionDecl *FD : Functions) {
        if (!Members.contains(FD->getCanonicalDecl()))
          continue;
        auto Mine = ByKey.find(key(FD));
        if (Mine == ByKey.end())
          continue;
        const FunctionFacts &F = FactsOf(FD);
        for (const Fact &Fc : F.all()) {
          if (Fc.K != Fact::UserCall || !Fc.Definition ||
              !Members.contains(Fc.Definition->getCanonicalDecl()) ||
              (Fc.InLambda && !F.runsInBody(Fc.S)))
            continue;
          auto Known = ByKey.find(key(Fc.Callee));
          if (Known == ByKey.end())
            continue;
          const FunctionSummary Callee = Storage[Known->second]; // may be the caller itself
          const bool Guarded = F.isGuarded(Fc.S);
          Fell |= absorbCall(Storage[Mine->second], Callee, 0, Guarded ? NotReached : 0);
          if (Guarded)
            continue;
          // The note's site for each depth the call now reaches one at.
          const ForwardSites Through = FirstForward[Known->second];
          ForwardSites &Sites = FirstForward[Mine->second];
          for (unsigned D = 1; D <= MaxSummaryDepth; ++D)
            if (!Sites[D])
              Sites[D] = Through[D - 1];
        }
      }
    }
  };

  for (auto SCC = llvm::scc_begin(&Graph.Entry); !SCC.isAtEnd(); ++SCC) {
    llvm::SmallPtrSet<const FunctionDecl *, 4> Members;
    for (const CallOrder::Node *N : *SCC)
      if (N->FD)
        Members.insert(N->FD);
    for (const FunctionDecl *FD : Functions)
      if (Members.contains(FD->getCanonicalDecl()) && Done.insert(FD->getCanonicalDecl()).second)
        Summarise(FD, Members);
    if (SCC.hasCycle())
      RelaxCycle(Members);
  }
}

} // namespace clang::tidy::torch_check
