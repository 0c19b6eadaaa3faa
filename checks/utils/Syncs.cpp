//===--- Syncs.cpp - libtorch-tidy ----------------------------------------===//

#include "Syncs.h"
#include "ASTHelpers.h"
#include "TorchMembers.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch_check {

SyncKind classifySync(const CallExpr *Call) {
  if (!Call)
    return SyncKind::None;
  llvm::StringRef Method = tensorMethodName(Call);
  if (Method == "item")
    return SyncKind::Item;
  if (Method == "cpu")
    return SyncKind::Cpu;
  if (Method == "to" && Call->getNumArgs() >= 1 && isCPUDeviceExpr(Call->getArg(0)))
    return SyncKind::ToCpu;
  if (isNamed(Call->getDirectCallee(), names::CudaSynchronize))
    return SyncKind::Synchronize;
  return SyncKind::None;
}

llvm::StringRef syncSpelling(SyncKind K) {
  switch (K) {
  case SyncKind::Item:
    return "item()";
  case SyncKind::Cpu:
    return "cpu()";
  case SyncKind::ToCpu:
    return "to(kCPU)";
  case SyncKind::Synchronize:
    return "torch::cuda::synchronize()";
  case SyncKind::None:
    break;
  }
  return "";
}

namespace {

/// \p T is a DataLoader batch: `torch::data::Example<...>` or a container of
/// them (`std::vector<Example<>>` for a dataset without a Stack transform).
bool isDataLoaderBatchType(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (isNamed(RD, names::DataExample))
    return true;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return false;
  const auto *Elem = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  return Elem && isNamed(Elem, names::DataExample);
}

/// A field of a DataLoader batch (`batch.data`, `batch[0].target`): the loader
/// assembles batches on the host, so the tensor is on the CPU until the loop
/// moves it (a dataset that creates CUDA tensors in get() is not seen).
bool isLoaderBatchField(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(E);
  if (!ME)
    return false;
  const Expr *Base = ME->getBase()->IgnoreImplicit()->IgnoreParens();
  if (const auto *Sub = dyn_cast<CXXOperatorCallExpr>(Base);
      Sub && Sub->getOperator() == OO_Subscript && Sub->getNumArgs() > 0)
    Base = Sub->getArg(0)->IgnoreImplicit()->IgnoreParens();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && isDataLoaderBatchType(VD->getType());
}

/// The tensor is already on the CPU: it comes from `.cpu()` / `.to(kCPU)`,
/// directly or through a variable initialised that way, or it is a field of a
/// DataLoader batch.
bool alreadyOnCpu(const Expr *Object) {
  for (unsigned Depth = 0; Object && Depth < 16; ++Depth) {
    Object = Object->IgnoreImplicit()->IgnoreParens();
    if (isLoaderBatchField(Object))
      return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Object)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD || !VD->getInit())
        return false;
      Object = VD->getInit();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Object);
        Construct && Construct->getNumArgs() == 1) {
      Object = Construct->getArg(0);
      continue;
    }
    const auto *Call = dyn_cast<CXXMemberCallExpr>(Object);
    if (!Call)
      return false;
    SyncKind K = classifySync(Call);
    if (K == SyncKind::Cpu || K == SyncKind::ToCpu)
      return true;
    llvm::StringRef Method = tensorMethodName(Call);
    if (Method.empty() || Method == "to" || Method == "cuda")
      return false; // a move to a device that is not known to be the CPU

    Object = Call->getImplicitObjectArgument();
  }
  return false;
}

/// The if, while, for, do, switch or `?:` at or below \p Stop whose
/// condition \p E is (part of): the host branches on its value. Null when
/// there is none.
const Stmt *conditionOwner(const Stmt *E, const Stmt *Stop, const ParentMap &PM) {
  const Stmt *Child = E;
  for (const Stmt *P = PM.getParent(E); P; Child = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P))
      return If->getCond() == Child ? P : nullptr;
    if (const auto *While = dyn_cast<WhileStmt>(P))
      return While->getCond() == Child ? P : nullptr;
    if (const auto *Do = dyn_cast<DoStmt>(P))
      return Do->getCond() == Child ? P : nullptr;
    if (const auto *For = dyn_cast<ForStmt>(P))
      return For->getCond() == Child ? P : nullptr;
    if (const auto *Switch = dyn_cast<SwitchStmt>(P))
      return Switch->getCond() == Child ? P : nullptr;
    if (const auto *CO = dyn_cast<ConditionalOperator>(P); CO && CO->getCond() == Child)
      return P;
    if (P == Stop || !isa<Expr>(P))
      return nullptr;
  }
  return nullptr;
}

/// The local variable that the full expression holding \p Call initialises or
/// is assigned to with `=` (`auto v = t.item<float>();`, `v = t.item().toFloat();`),
/// or null.
const VarDecl *assignedVariable(const Expr *Call, const ParentMap &PM) {
  const Stmt *Top = Call;
  const Stmt *P = PM.getParent(Top);
  for (; P && isa<Expr>(P); Top = P, P = PM.getParent(P)) {
    const auto *BO = dyn_cast<BinaryOperator>(P);
    if (BO && BO->getOpcode() == BO_Assign && BO->getRHS() == Top) {
      const auto *DRE = dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts());
      const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      return VD && VD->hasLocalStorage() ? VD : nullptr;
    }
    if (BO && BO->isAssignmentOp())
      return nullptr; // `+=` and friends accumulate for later reporting
  }
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(P))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getInit() == Top)
        return VD->hasLocalStorage() ? VD : nullptr;
  return nullptr;
}

/// `t.defined()` (Negated: `!t.defined()`), parentheses and conversions aside.
bool isDefinedTest(const Expr *Cond, bool Negated) {
  if (!Cond)
    return false;
  Cond = Cond->IgnoreParenImpCasts();
  if (Negated) {
    const auto *Not = dyn_cast<UnaryOperator>(Cond);
    if (!Not || Not->getOpcode() != UO_LNot)
      return false;
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Cond);
  return Call && tensorMethodName(Call) == "defined";
}

/// The loop (or, for a `break`, the switch) that \p Jump leaves or restarts.
const Stmt *jumpTarget(const Stmt *Jump, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(Jump); P; P = PM.getParent(P)) {
    if (isLoopStmt(P))
      return P;
    if (isa<SwitchStmt>(P) && isa<BreakStmt>(Jump))
      return P;
    if (isa<LambdaExpr>(P))
      return nullptr;
  }
  return nullptr;
}

/// The variable or field \p S writes as a whole: `v = e`, `v += e`, `++v`,
/// `v--`, a class's `operator=` / `operator+=` on it. Null otherwise.
const ValueDecl *writtenVariable(const Stmt *S) {
  const Expr *Target = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    Target = BO->getLHS();
  else if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
    Target = UO->getSubExpr();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
           Op && Op->isAssignmentOp() && Op->getNumArgs() == 2)
    Target = Op->getArg(0);
  if (!Target)
    return nullptr;
  Target = Target->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Target))
    return isa<VarDecl>(DRE->getDecl()) ? DRE->getDecl() : nullptr;
  if (const auto *ME = dyn_cast<MemberExpr>(Target))
    return isa<FieldDecl>(ME->getMemberDecl()) ? ME->getMemberDecl() : nullptr;
  return nullptr;
}

/// A `return` that only leaves when a tensor is not defined
/// (`if (!p.grad().defined()) return;`).
bool returnsOnlyWhenUndefined(const Stmt *Return, const ParentMap &PM) {
  const Stmt *Child = Return;
  for (const Stmt *P = PM.getParent(Return); P; Child = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P))
      return If->getThen() == Child && isDefinedTest(If->getCond(), /*Negated=*/true);
    if (!isa<CompoundStmt>(P))
      return false;
  }
  return false;
}

} // namespace

/// The branch \p Owner chooses (by its condition) leaves or restarts a loop
/// around it or the function (`break`, `continue`, `return`, `goto`; not
/// `throw`, an error path), or runs a training step (a backward pass, an
/// optimizer step or zero_grad, or a call \p IsTraining accepts); or Owner
/// is a loop, whose condition decides how often it runs. Lambdas spelled in a
/// branch do not count.
static bool decidesIteration(const Stmt *Owner, const Stmt *Scope, const ParentMap &PM,
                             TrainingCallFn IsTraining) {
  if (!Owner)
    return false;
  if (isLoopStmt(Owner))
    return true; // how many times a loop runs
  const Stmt *Branches[2] = {nullptr, nullptr};
  if (const auto *If = dyn_cast<IfStmt>(Owner))
    Branches[0] = If->getThen(), Branches[1] = If->getElse();
  else if (const auto *Switch = dyn_cast<SwitchStmt>(Owner))
    Branches[0] = Switch->getBody();
  else if (const auto *CO = dyn_cast<ConditionalOperator>(Owner))
    Branches[0] = CO->getTrueExpr(), Branches[1] = CO->getFalseExpr();
  auto Decides = [&](const Stmt *X) {
    if (isa<ReturnStmt, GotoStmt, IndirectGotoStmt, CoreturnStmt>(X))
      return true;
    if (isa<BreakStmt, ContinueStmt>(X)) {
      // Only a jump out of the statement itself (a loop around it).
      const Stmt *Target = jumpTarget(X, PM);
      return Target && Target != Owner && !isDescendant(Target, Owner, PM);
    }
    // A variable the branch writes and the loop reads elsewhere: an action
    // chosen for the environment (`if (a.item<float>() < 0) act = 1;` ...
    // `env.step(act)`), not a record kept for later (`best = v`).
    if (const ValueDecl *Written = writtenVariable(X))
      return anyStmt(Scope, [&](const Stmt *Use) {
        return namesDecl(dyn_cast<Expr>(Use), Written) && !isDescendant(Use, Owner, PM);
      });
    const auto *Call = dyn_cast<CallExpr>(X);
    return Call &&
           (classifyTrainingCall(Call) != TrainingCall::None || (IsTraining && IsTraining(Call)));
  };
  for (const Stmt *Branch : Branches)
    if (Branch &&
        anyStmt(Branch, Decides, [](const Stmt *X) { return isa<LambdaExpr, BlockExpr>(X); }))
      return true;
  return false;
}

/// \p Use, a number read from the device, shapes the step's tensor work: it
/// is an argument of a forward pass, or an integer argument of a LibTorch
/// operation (a size, an index, a Slice bound: `torch::ones({n, 1})`,
/// `x.index({Slice(n, None)})`, `x.narrow(0, 0, n)`), through conversions
/// and braced lists. The host cannot do without it; a tensor could not stand
/// in for it.
static bool shapesTensorWork(const Expr *Use, const ParentMap &PM) {
  const bool Integral = Use->getType()->isIntegralOrEnumerationType();
  for (const Stmt *P = PM.getParent(Use); P; P = PM.getParent(P)) {
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, FullExpr,
            InitListExpr, CXXStdInitializerListExpr, ExplicitCastExpr>(P))
      continue;
    if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
      // IntArrayRef, Slice, TensorIndex on the way to the operation.
      if (Integral && isInLibraryNamespace(CE->getConstructor()))
        continue;
      return false;
    }
    const auto *Call = dyn_cast<CallExpr>(P);
    if (!Call)
      return false;
    if (isForwardCall(Call))
      return true;
    const FunctionDecl *FD = Call->getDirectCallee();
    return Integral && FD && !isa<CXXOperatorCallExpr>(Call) && isInLibraryNamespace(FD);
  }
  return false;
}

bool valueDecidesControlFlow(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM,
                             TrainingCallFn IsTraining) {
  if (const Stmt *Owner = conditionOwner(Call, Scope, PM))
    return decidesIteration(Owner, Scope, PM, IsTraining);
  if (shapesTensorWork(Call, PM))
    return true;
  const VarDecl *VD = assignedVariable(Call, PM);
  return VD && anyStmt(Scope, [&](const Stmt *S) {
           const auto *DRE = dyn_cast<DeclRefExpr>(S);
           return DRE && DRE->getDecl() == VD &&
                  (decidesIteration(conditionOwner(DRE, Scope, PM), Scope, PM, IsTraining) ||
                   shapesTensorWork(DRE, PM));
         });
}

SyncKind habitualSync(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM,
                      TrainingCallFn IsTraining) {
  SyncKind K = classifySync(Call);
  if (K == SyncKind::None)
    return K;
  if (K != SyncKind::Synchronize) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (!Member || alreadyOnCpu(Member->getImplicitObjectArgument()))
      return SyncKind::None;
  }
  if (valueDecidesControlFlow(Call, Scope, PM, IsTraining))
    return SyncKind::None;
  return K;
}

bool runsOnEveryCall(const Stmt *S, const Stmt *Body, const ParentMap &PM, const SourceManager &SM) {
  if (!S || !Body)
    return false;
  // Nothing on the way up from S to the body chooses it.
  const Stmt *Child = S;
  const Stmt *P = PM.getParent(S);
  for (; P; Child = P, P = PM.getParent(P)) {
    if (isa<LambdaExpr, CXXCatchStmt, SwitchCase, BlockExpr>(P))
      return false;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      bool Chosen = Child == If->getThen() || Child == If->getElse();
      if (Chosen && !(Child == If->getThen() && isDefinedTest(If->getCond(), /*Negated=*/false)))
        return false;
    }
    if (const auto *Switch = dyn_cast<SwitchStmt>(P); Switch && Child != Switch->getCond())
      return false;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P); CO && Child != CO->getCond())
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P); BO && BO->isLogicalOp() && Child == BO->getRHS())
      return false;
    if (P == Body)
      break;
  }
  if (!P)
    return false;
  // Nothing written before it can leave the way to it.
  return walkStmts(Body, [&](const Stmt *X) {
    if (isa<LambdaExpr, BlockExpr>(X))
      return Walk::Skip;
    if (!isa<ReturnStmt, GotoStmt, IndirectGotoStmt, BreakStmt, ContinueStmt, CoreturnStmt>(X) ||
        !startsBefore(X, S, SM) || isDescendant(S, X, PM)) // `return f(t.item())` runs it first
      return Walk::Into;
    if (isa<ReturnStmt>(X) && returnsOnlyWhenUndefined(X, PM))
      return Walk::Into;
    if (isa<BreakStmt, ContinueStmt>(X)) {
      // Only a jump out of (or back in) a loop around S skips it.
      const Stmt *Target = jumpTarget(X, PM);
      if (!Target || !isDescendant(S, Target, PM))
        return Walk::Into;
    }
    return Walk::Stop;
  });
}

} // namespace clang::tidy::torch_check
