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

/// True when \p E is (part of) the condition of an if/while/for/do/switch or
/// `?:` at or below \p Stop: the host branches on its value.
bool isInCondition(const Stmt *E, const Stmt *Stop, const ParentMap &PM) {
  const Stmt *Child = E;
  for (const Stmt *P = PM.getParent(E); P; Child = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P))
      return If->getCond() == Child;
    if (const auto *While = dyn_cast<WhileStmt>(P))
      return While->getCond() == Child;
    if (const auto *Do = dyn_cast<DoStmt>(P))
      return Do->getCond() == Child;
    if (const auto *For = dyn_cast<ForStmt>(P))
      return For->getCond() == Child;
    if (const auto *Switch = dyn_cast<SwitchStmt>(P))
      return Switch->getCond() == Child;
    if (const auto *CO = dyn_cast<ConditionalOperator>(P); CO && CO->getCond() == Child)
      return true;
    if (P == Stop || !isa<Expr>(P))
      return false;
  }
  return false;
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

/// True when some condition inside \p Scope (its own condition included) reads
/// \p VD.
bool readInCondition(const VarDecl *VD, const Stmt *Scope, const ParentMap &PM) {
  return anyStmt(Scope, [&](const Stmt *S) {
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    return DRE && DRE->getDecl() == VD && isInCondition(DRE, Scope, PM);
  });
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

bool valueDecidesControlFlow(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM) {
  if (isInCondition(Call, Scope, PM))
    return true;
  const VarDecl *VD = assignedVariable(Call, PM);
  return VD && readInCondition(VD, Scope, PM);
}

SyncKind habitualSync(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM) {
  SyncKind K = classifySync(Call);
  if (K == SyncKind::None)
    return K;
  if (K != SyncKind::Synchronize) {
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (!Member || alreadyOnCpu(Member->getImplicitObjectArgument()))
      return SyncKind::None;
  }
  if (valueDecidesControlFlow(Call, Scope, PM))
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
