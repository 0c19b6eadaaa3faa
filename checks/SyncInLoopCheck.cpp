//===--- SyncInLoopCheck.cpp - libtorch-tidy ------------------------------===//

#include "SyncInLoopCheck.h"
#include "utils/AnalysisCore.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/TorchMembers.h"
#include "utils/TorchNames.h"
#include "utils/TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

enum class SyncKind { None, Item, Cpu, ToCpu, Synchronize };

SyncKind classify(const CallExpr *Call) {
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
    SyncKind K = classify(Call);
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

/// True when some condition inside \p Loop (its own condition included) reads
/// \p VD.
bool readInCondition(const VarDecl *VD, const Stmt *Loop, const ParentMap &PM) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *VD;
    const Stmt *Loop;
    const ParentMap &PM;
    bool Found = false;
    Finder(const VarDecl *VD, const Stmt *Loop, const ParentMap &PM) : VD(VD), Loop(Loop), PM(PM) {}
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      if (DRE->getDecl() == VD && isInCondition(DRE, Loop, PM))
        Found = true;
      return !Found;
    }
  } F(VD, Loop, PM);
  F.TraverseStmt(const_cast<Stmt *>(Loop));
  return F.Found;
}

/// The host needs the value on every iteration: the sync's result decides a
/// branch, directly (`if (loss.item<float>() > t)`, an assertion) or through a
/// local variable that a condition of the loop reads (`v = t.item<float>(); if
/// (v < eps) break;`). Such a sync is the algorithm's, not a reporting habit.
bool valueDecidesControlFlow(const CallExpr *Call, const Stmt *Loop, const ParentMap &PM) {
  if (isInCondition(Call, Loop, PM))
    return true;
  const VarDecl *VD = assignedVariable(Call, PM);
  return VD && readInCondition(VD, Loop, PM);
}

/// \p S is in \p LoopBody and not in a lambda spelled there (which may not run
/// every iteration).
bool inLoopBody(const Stmt *S, const Stmt *LoopBody, const ParentMap &PM) {
  for (const Stmt *P = S; P; P = PM.getParent(P)) {
    if (P == LoopBody)
      return true;
    if (isa<LambdaExpr>(P))
      return false;
  }
  return false;
}

} // namespace

void SyncInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const TrainingLoopAnalysis &Analysis =
      core().trainingLoops(FD, Ctx, 0);

  if (Analysis.empty())
    return;
  // The synchronisations are the core's facts (item(), cpu(), to(kCPU),
  // torch::cuda::synchronize()).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.has(Fact::Sync))
    return;
  for (const TrainingLoop &Loop : Analysis.loops()) {
    for (const Fact *F : Facts.of(Fact::Sync)) {
      const auto *Call = dyn_cast<CallExpr>(F->S);
      SyncKind K = Call ? classify(Call) : SyncKind::None;
      if (K == SyncKind::None || !inLoopBody(Call, Loop.Body, Analysis.parents()))
        continue;
      if (K != SyncKind::Synchronize &&
          alreadyOnCpu(cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument()))
        continue;
      if (!Analysis.runsEveryIteration(Call, Loop, /*ThroughNestedLoops=*/true))
        continue;
      if (valueDecidesControlFlow(Call, Loop.Loop, Analysis.parents()))
        continue;
      std::string What;
      switch (K) {
      case SyncKind::Item:
        What = "item()";
        break;
      case SyncKind::Cpu:
        What = "cpu()";
        break;
      case SyncKind::ToCpu:
        What = "to(kCPU)";
        break;
      default:
        What = "torch::cuda::synchronize()";
        break;
      }
      diag(Call->getExprLoc(),
           "'%0' on every iteration of the training loop synchronizes the host with the "
           "device: the CPU waits until all queued GPU work is done before it can enqueue the "
           "next batch")
          << What << Call->getSourceRange();
      diag(compat::beginLoc(Loop.Loop),
           "training loop here; synchronize only under a logging condition (`if (step %% N == "
           "0)`) or after the loop",
           DiagnosticIDs::Note);
    }
  }
}

} // namespace clang::tidy::torch_check
