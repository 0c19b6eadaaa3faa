//===--- Summaries.cpp - libtorch-tidy ------------------------------------===//

#include "Summaries.h"
#include "AnalysisCore.h"
#include "History.h"
#include "TrainingLoop.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/CallGraph.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>

namespace clang::tidy::torch_check {

std::string usrOf(const Decl *D) {
  llvm::SmallString<128> Buf;
  if (!D || index::generateUSRForDecl(D, Buf))
    return {};
  return std::string(Buf);
}

bool operator==(const FunctionSummary &A, const FunctionSummary &B) {
  return A.USR == B.USR && A.Name == B.Name && A.Forward == B.Forward &&
         A.Backward == B.Backward && A.Step == B.Step && A.ZeroGrad == B.ZeroGrad &&
         A.Train == B.Train && A.Eval == B.Eval && A.Sync == B.Sync &&
         A.DisablesGrad == B.DisablesGrad && A.ReturnsHistory == B.ReturnsHistory &&
         A.ReturnsHistoryFromArgs == B.ReturnsHistoryFromArgs && A.Params == B.Params;
}

// ---- JSON -------------------------------------------------------------------

static llvm::json::Value levelToJSON(unsigned L) {
  return L == NotReached ? llvm::json::Value(nullptr) : llvm::json::Value(int64_t(L));
}

static bool levelFromJSON(const llvm::json::Object &O, llvm::StringRef Key, unsigned &L) {
  const llvm::json::Value *V = O.get(Key);
  if (!V || V->getAsNull()) {
    L = NotReached;
    return true;
  }
  std::optional<int64_t> I = V->getAsInteger();
  if (!I || *I < 0 || *I > int64_t(MaxSummaryDepth))
    return false;
  L = unsigned(*I);
  return true;
}

llvm::json::Value toJSON(const FunctionSummary &S) {
  llvm::json::Array Params;
  for (const ParameterSummary &P : S.Params)
    Params.push_back(llvm::json::Object{{"reachesBackward", P.ReachesBackward},
                                        {"writtenInPlace", P.WrittenInPlace},
                                        {"inserted", P.Inserted},
                                        {"returned", P.Returned}});
  return llvm::json::Object{{"usr", S.USR},
                            {"name", S.Name},
                            {"forward", levelToJSON(S.Forward)},
                            {"backward", levelToJSON(S.Backward)},
                            {"step", levelToJSON(S.Step)},
                            {"zeroGrad", levelToJSON(S.ZeroGrad)},
                            {"train", levelToJSON(S.Train)},
                            {"eval", levelToJSON(S.Eval)},
                            {"sync", levelToJSON(S.Sync)},
                            {"disablesGrad", S.DisablesGrad},
                            {"returnsHistory", S.ReturnsHistory},
                            {"returnsHistoryFromArgs", S.ReturnsHistoryFromArgs},
                            {"params", std::move(Params)}};
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary &S, llvm::json::Path P) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O) {
    P.report("expected an object");
    return false;
  }
  llvm::json::ObjectMapper M(V, P);
  if (!M || !M.map("usr", S.USR) || !M.map("name", S.Name) ||
      !M.map("disablesGrad", S.DisablesGrad) || !M.map("returnsHistory", S.ReturnsHistory) ||
      !M.map("returnsHistoryFromArgs", S.ReturnsHistoryFromArgs))
    return false;
  struct {
    llvm::StringRef Key;
    unsigned &Level;
  } Levels[] = {{"forward", S.Forward}, {"backward", S.Backward}, {"step", S.Step},
                {"zeroGrad", S.ZeroGrad}, {"train", S.Train},     {"eval", S.Eval},
                {"sync", S.Sync}};
  for (auto &L : Levels)
    if (!levelFromJSON(*O, L.Key, L.Level)) {
      P.field(L.Key).report("expected null or a call depth");
      return false;
    }
  S.Params.clear();
  const llvm::json::Array *Params = O->getArray("params");
  if (!Params) {
    P.field("params").report("expected an array");
    return false;
  }
  for (const llvm::json::Value &PV : *Params) {
    ParameterSummary PS;
    llvm::json::ObjectMapper PM(PV, P.field("params"));
    if (!PM || !PM.map("reachesBackward", PS.ReachesBackward) ||
        !PM.map("writtenInPlace", PS.WrittenInPlace) || !PM.map("inserted", PS.Inserted) ||
        !PM.map("returned", PS.Returned))
      return false;
    S.Params.push_back(PS);
  }
  return true;
}

// ---- the table --------------------------------------------------------------

const FunctionDecl *SummaryTable::key(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

const FunctionSummary *SummaryTable::lookup(const FunctionDecl *FD) const {
  auto It = ByKey.find(key(FD));
  return It == ByKey.end() ? nullptr : &Storage[It->second];
}

const FunctionSummary *SummaryTable::lookup(llvm::StringRef USR) const {
  auto It = ByUSR.find(USR);
  return It == ByUSR.end() ? nullptr : &Storage[It->second];
}

void SummaryTable::clear() {
  Storage.clear();
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

namespace {
/// The variable declarations and returned values of a body (not of the
/// lambdas in it), for the parameter flows.
struct BodyFlows : RecursiveASTVisitor<BodyFlows> {
  llvm::SmallVector<std::pair<const ValueDecl *, const Expr *>, 16> Defs;
  llvm::SmallVector<const Expr *, 4> Returns;
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->getInit() && !isa<ParmVarDecl>(VD))
      Defs.push_back({VD, VD->getInit()});
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      if (const ValueDecl *V = namedVariable(BO->getLHS()))
        Defs.push_back({V, BO->getRHS()});
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      if (const ValueDecl *V = namedVariable(Op->getArg(0)))
        Defs.push_back({V, Op->getArg(1)});
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *R) {
    if (R->getRetValue())
      Returns.push_back(R->getRetValue());
    return true;
  }
};

bool refersToAny(const Stmt *S, const llvm::SmallPtrSetImpl<const ValueDecl *> &Vars) {
  for (const ValueDecl *V : Vars)
    if (refersTo(S, V))
      return true;
  return false;
}

void lower(unsigned &Level, unsigned Candidate) {
  if (Candidate != NotReached && Candidate < Level)
    Level = Candidate;
}

unsigned deeper(unsigned Level) {
  return Level == NotReached || Level + 1 > MaxSummaryDepth ? NotReached : Level + 1;
}

void merge(FunctionSummary &Into, const FunctionSummary &From) {
  lower(Into.Forward, From.Forward);
  lower(Into.Backward, From.Backward);
  lower(Into.Step, From.Step);
  lower(Into.ZeroGrad, From.ZeroGrad);
  lower(Into.Train, From.Train);
  lower(Into.Eval, From.Eval);
  lower(Into.Sync, From.Sync);
  Into.DisablesGrad |= From.DisablesGrad;
  Into.ReturnsHistory |= From.ReturnsHistory;
  Into.ReturnsHistoryFromArgs |= From.ReturnsHistoryFromArgs;
  if (Into.Params.size() < From.Params.size())
    Into.Params.resize(From.Params.size());
  for (size_t I = 0; I < From.Params.size(); ++I) {
    Into.Params[I].ReachesBackward |= From.Params[I].ReachesBackward;
    Into.Params[I].WrittenInPlace |= From.Params[I].WrittenInPlace;
    Into.Params[I].Inserted |= From.Params[I].Inserted;
    Into.Params[I].Returned |= From.Params[I].Returned;
  }
}
} // namespace

void SummaryTable::build(llvm::ArrayRef<const FunctionDecl *> Functions, ASTContext &Ctx,
                         FactsFn FactsOf, HistoryFunctions *History) {
  clear();
  llvm::SmallPtrSet<const FunctionDecl *, 32> Wanted;
  clang::CallGraph CG;
  for (const FunctionDecl *FD : Functions) {
    Wanted.insert(FD->getCanonicalDecl());
    CG.addToCallGraph(const_cast<FunctionDecl *>(FD));
  }
  // Every user function is an entry: static functions and members are not
  // reachable from the graph's root otherwise.
  for (const FunctionDecl *FD : Functions)
    if (CallGraphNode *N = CG.getNode(FD->getCanonicalDecl()))
      CG.getRoot()->addCallee(CallGraphNode::CallRecord(N, nullptr));

  llvm::SmallPtrSet<const FunctionDecl *, 32> Done;

  auto Summarise = [&](const FunctionDecl *FD,
                       const llvm::SmallPtrSetImpl<const FunctionDecl *> &SameSCC) {
    const FunctionFacts &F = FactsOf(FD);
    const FunctionDecl *Key = key(FD);
    FunctionSummary S;
    S.USR = usrOf(Key);
    S.Name = Key->getQualifiedNameAsString();
    S.Params.resize(FD->getNumParams());

    BodyFlows Flows;
    Flows.TraverseStmt(const_cast<Stmt *>(F.body()));
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

    for (const Fact &Fc : F.all()) {
      if (Fc.InLambda)
        continue;
      switch (Fc.K) {
      case Fact::Forward:
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
        const FunctionSummary *CS = lookup(Fc.Callee);
        if (!CS)
          break;
        lower(S.Forward, deeper(CS->Forward));
        lower(S.Backward, deeper(CS->Backward));
        lower(S.Step, deeper(CS->Step));
        lower(S.ZeroGrad, deeper(CS->ZeroGrad));
        lower(S.Train, deeper(CS->Train));
        lower(S.Eval, deeper(CS->Eval));
        lower(S.Sync, deeper(CS->Sync));
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
    if (History) {
      HistoryFunctions::Summary H = History->summary(FD, Ctx);
      S.ReturnsHistory = H.Always;
      S.ReturnsHistoryFromArgs = H.FromArgs;
    }

    // Instantiations of one pattern share its key and merge.
    if (auto It = ByKey.find(Key); It != ByKey.end()) {
      merge(Storage[It->second], S);
      return;
    }
    ByKey[Key] = Storage.size();
    if (!S.USR.empty())
      ByUSR[S.USR] = Storage.size();
    Storage.push_back(std::move(S));
    Order.push_back(Key);
  };

  for (auto SCC = llvm::scc_begin(&CG); !SCC.isAtEnd(); ++SCC) {
    llvm::SmallPtrSet<const FunctionDecl *, 4> Members;
    for (const CallGraphNode *N : *SCC)
      if (const auto *FD = dyn_cast_or_null<FunctionDecl>(N->getDecl()))
        if (Wanted.contains(FD->getCanonicalDecl()))
          Members.insert(FD->getCanonicalDecl());
    for (const FunctionDecl *FD : Functions)
      if (Members.contains(FD->getCanonicalDecl()) && Done.insert(FD->getCanonicalDecl()).second)
        Summarise(FD, Members);
  }
  // Functions clang's graph leaves out (uninstantiated templates): callers
  // only, summarised last.
  for (const FunctionDecl *FD : Functions)
    if (Done.insert(FD->getCanonicalDecl()).second) {
      llvm::SmallPtrSet<const FunctionDecl *, 4> Self;
      Self.insert(FD->getCanonicalDecl());
      Summarise(FD, Self);
    }
}

} // namespace clang::tidy::torch_check
