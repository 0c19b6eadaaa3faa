//===--- Fp16WithoutGradScalerCheck.cpp - libtorch-tidy -------------------===//

#include "Fp16WithoutGradScalerCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/Autocast.h"
#include "utils/CallFacts.h"
#include "utils/ClangTidyCompat.h"
#include "utils/FunctionFacts.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral GradScalerSpelling = "libtorch_tidy::amp::GradScaler";
static constexpr llvm::StringLiteral LossMessage =
    "backward on a loss computed in float16 without loss scaling: gradients smaller than float16 "
    "can hold (about 6e-8) become zero and the weights they belong to stop learning";
static constexpr llvm::StringLiteral SwitchNote =
    "autocast computes in float16 from here%select{| (the CUDA default: nothing in this "
    "translation unit sets another dtype)}0; scale the loss with a gradient scaler before "
    "backward ('%1': scaler.scale(loss).backward(), scaler.step(optimizer), scaler.update())";

namespace {

/// Where float16 computation starts: an autocast switch, an autocast scope
/// object, or a module converted to float16.
struct Fp16Source {
  enum Kind { Switch, Scope, HalfModule } What;
  const Stmt *At;              ///< the switch call, the scope's declaration, the to() call
  const Stmt *End = nullptr;   ///< Switch: the call that switches it off again (or null)
  const Stmt *Block = nullptr; ///< Scope: the block the scope object lives in
  const ValueDecl *Module = nullptr; ///< HalfModule: the module converted
  bool DefaultDtype = false;   ///< Switch: float16 as the device's default dtype
};

struct Facts {
  llvm::SmallVector<std::pair<const CallExpr *, AutocastSwitch>, 4> Switches;
  llvm::SmallVector<std::pair<const CallExpr *, AutocastDtypeSetter>, 4> DtypeSetters;
  /// loss.backward() and torch::autograd::backward({loss, ...}) with the
  /// expression that holds the loss (the tensor, or the list of tensors).
  llvm::SmallVector<std::pair<const CallExpr *, const Expr *>, 4> Backwards;
  llvm::SmallVector<Fp16Source, 4> Sources;
  bool UsesScalerObject = false;
};

bool containsInsensitive(llvm::StringRef Haystack, llvm::StringRef Needle) {
  return Haystack.lower().find(Needle) != std::string::npos;
}

const ValueDecl *referencedDecl(const Expr *E) {
  E = stripHolderArrow(E);
  if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E))
    return DRE->getDecl();
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(E))
    return ME->getMemberDecl();
  return nullptr;
}

/// A class named like a loss scaler (GradScaler, LossScaler, ManualGradScaler).
bool isScalerClass(const CXXRecordDecl *RD) {
  return RD && RD->getIdentifier() && containsInsensitive(RD->getName(), "scaler");
}

/// The autocast scope object \p VD declares (AutocastGuard, a project's own
/// RAII class), constructed with a constant float16 dtype: its construction.
const CXXConstructExpr *halfAutocastScope(const VarDecl *VD, const ASTContext &Ctx) {
  const CXXRecordDecl *RD = classOf(VD->getType());
  if (!RD || !RD->getIdentifier() || !containsInsensitive(RD->getName(), "autocast"))
    return nullptr;
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(VD->getInit());
  if (!Construct)
    return nullptr;
  for (const Expr *Arg : Construct->arguments())
    if (const auto *ET = Arg->IgnoreParenImpCasts()->getType()->getAs<EnumType>();
        ET && ET->getDecl()->getIdentifier() && ET->getDecl()->getName() == "ScalarType")
      return isHalfDtypeName(scalarTypeName(Arg, Ctx)) ? Construct : nullptr;
  return nullptr;
}

/// What the check asks of the body, read from its facts (the core's one
/// walk): the autocast switches and dtype setters, the backward passes, the
/// float16 sources (a module's to(), a float16 autocast scope object) in the
/// order the walk meets them, and whether a scaler object is declared or a
/// scaler member named.
Facts collect(const FunctionFacts &Shared, const ASTContext &Ctx) {
  Facts F;
  llvm::DenseMap<const Expr *, const VarDecl *> Scopes;
  for (const FunctionFacts::Node &N : Shared.nodes()) {
    const VarDecl *VD = N.Var;
    if (!VD)
      continue;
    if (isScalerClass(classOf(VD->getType())))
      F.UsesScalerObject = true;
    if (const CXXConstructExpr *Construct = halfAutocastScope(VD, Ctx))
      Scopes[Construct] = VD;
  }
  for (const auto &[Member, Refs] : Shared.memberReferences())
    if (isScalerClass(classOf(Member->getType(), true)))
      F.UsesScalerObject = true;
  for (const CallSite &Site : Shared.calls()) {
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(Site.E)) {
      if (const VarDecl *VD = Scopes.lookup(Construct))
        F.Sources.push_back({Fp16Source::Scope, VD->getInit()});
      continue;
    }
    const auto *Call = cast<CallExpr>(Site.E);
    if (AutocastSwitch S = classifyAutocastSwitch(Call, Ctx); S.Value != AutocastSwitch::NotACall)
      F.Switches.push_back({Call, S});
    else if (AutocastDtypeSetter D = classifyAutocastDtypeSetter(Call, Ctx); D.Dtype)
      F.DtypeSetters.push_back({Call, D});
    if (!isa<CXXMemberCallExpr>(Call) && Call->getNumArgs() >= 1 && isBackwardOrGradCall(Call) &&
        Call->getDirectCallee()->getName() == "backward")
      F.Backwards.push_back({Call, Call->getArg(0)});
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (isBackwardOrGradCall(MC) && MC->getImplicitObjectArgument())
        F.Backwards.push_back({MC, MC->getImplicitObjectArgument()});
      if (moduleMethodName(MC) == "to")
        for (const Expr *Arg : MC->arguments())
          if (isHalfDtypeName(scalarTypeName(Arg, Ctx)))
            if (const ValueDecl *Module = referencedDecl(MC->getImplicitObjectArgument())) {
              Fp16Source Src{Fp16Source::HalfModule, MC};
              Src.Module = Module;
              F.Sources.push_back(Src);
              break;
            }
    }
  }
  return F;
}

/// The values assigned to \p VD inside \p S (=, compound assignments).
void assignedValues(const Stmt *Root, const ValueDecl *VD, llvm::SmallVectorImpl<const Expr *> &Out) {
  forEachStmt(Root, [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      if (BO->isAssignmentOp() && referencedDecl(BO->getLHS()) == VD)
        Out.push_back(BO->getRHS());
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2 && referencedDecl(Op->getArg(0)) == VD)
        Out.push_back(Op->getArg(1));
  });
}

/// A call named like scaling (scaler.scale(loss), scale_loss(loss)), a call on
/// a scaler object, or a variable named like a scale factor, in \p S.
bool mentionsScaling(const Stmt *Root) {
  return anyStmt(Root, [](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      if (const FunctionDecl *FD = Call->getDirectCallee();
          FD && FD->getIdentifier() && containsInsensitive(FD->getName(), "scale"))
        return true;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        if (isScalerClass(MC->getRecordDecl()))
          return true;
    }
    const ValueDecl *VD = isa<Expr>(S) ? referencedDecl(cast<Expr>(S)) : nullptr;
    return VD && VD->getIdentifier() && containsInsensitive(VD->getName(), "scale");
  });
}

void forwardObjects(const Stmt *Root, llvm::SmallPtrSetImpl<const ValueDecl *> &Out) {
  forEachStmt(Root, [&](const Stmt *S) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const ValueDecl *VD = referencedDecl(forwardCallObject(Call)))
        Out.insert(VD);
  });
}

/// Adds to \p F.Sources the autocast switches that compute in float16: the
/// dtype every setter of the device in the same body sets is a constant
/// float16, or none sets one and float16 is the device's default (CUDA). A
/// dtype chosen at run time, or any other dtype, is no evidence. Scope
/// sources get the block their object lives in.
void addSwitchSources(Facts &F, const ParentMap &PM, const Stmt *Body, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Before = [&](const Stmt *A, const Stmt *B) { return startsBefore(A, B, SM); };
  for (const auto &[Call, Switch] : F.Switches) {
    if (Switch.Value != AutocastSwitch::Enables || Switch.Device.Name.empty())
      continue;
    const Stmt *CodeBody = enclosingCodeBody(Call, PM, Body);
    bool AnySetter = false, AllHalf = true;
    for (const auto &[SetCall, Setter] : F.DtypeSetters)
      if (Setter.Device.mayBe(Switch.Device) && enclosingCodeBody(SetCall, PM, Body) == CodeBody) {
        AnySetter = true;
        AllHalf &= isHalfDtypeName(scalarTypeName(Setter.Dtype, Ctx));
      }
    if (AnySetter ? !AllHalf : !isHalfDtypeName(defaultAutocastDtype(Switch.Device.Name)))
      continue;
    Fp16Source Src{Fp16Source::Switch, Call};
    Src.DefaultDtype = !AnySetter;
    for (const auto &[Off, OffSwitch] : F.Switches)
      if (OffSwitch.Value != AutocastSwitch::Enables && OffSwitch.Device.mayBe(Switch.Device) &&
          enclosingCodeBody(Off, PM, Body) == CodeBody && Before(Call, Off) &&
          (!Src.End || Before(Off, Src.End)))
        Src.End = Off;
    F.Sources.push_back(Src);
  }
  for (Fp16Source &Src : F.Sources)
    if (Src.What == Fp16Source::Scope) {
      const Stmt *S = Src.At;
      while (S && !isa<DeclStmt>(S))
        S = PM.getParent(S);
      Src.Block = S ? PM.getParent(S) : nullptr;
    }
}

/// The float16 source a computation at \p S depends on, if any.
const Fp16Source *sourceFor(const Expr *S, const Facts &F, const ParentMap &PM, const Stmt *Body,
                            const SourceManager &SM) {
  auto Before = [&](const Stmt *A, const Stmt *B) { return startsBefore(A, B, SM); };
  const Stmt *CodeBody = enclosingCodeBody(S, PM, Body);
  llvm::SmallPtrSet<const ValueDecl *, 4> Forwarded;
  forwardObjects(S, Forwarded);
  for (const Fp16Source &Src : F.Sources) {
    if (!Src.At || !Before(Src.At, S))
      continue;
    switch (Src.What) {
    case Fp16Source::Switch:
      if (enclosingCodeBody(Src.At, PM, Body) == CodeBody && (!Src.End || Before(S, Src.End)))
        return &Src;
      break;
    case Fp16Source::Scope:
      if (Src.Block && isDescendant(S, Src.Block, PM))
        return &Src;
      break;
    case Fp16Source::HalfModule:
      if (Forwarded.contains(Src.Module))
        return &Src;
      break;
    }
  }
  return nullptr;
}

/// Where the loss \p Loss of \p Backward computes in float16: the source of
/// the loss and of what it is computed from, a few assignments deep; Scaled
/// when a scaling is met first (then no source).
struct LossSource {
  const Fp16Source *Found = nullptr;
  bool Scaled = false;
};
LossSource lossSource(const CallExpr *Backward, const Expr *Loss, const Stmt *Body,
                      const SourceManager &SM,
                      llvm::function_ref<const Fp16Source *(const Expr *)> SourceFor) {
  llvm::SmallVector<std::pair<const Expr *, unsigned>, 8> Work{{Loss, 0}};
  llvm::SmallPtrSet<const ValueDecl *, 8> Seen;
  const Fp16Source *Found = nullptr;
  while (!Work.empty()) {
    auto [E, Depth] = Work.pop_back_val();
    if (Depth <= 1 && mentionsScaling(E))
      return {nullptr, true};
    if (!Found && (isa<CallExpr>(E->IgnoreImplicit()) || Depth > 0))
      Found = SourceFor(E);
    if (Depth >= 4)
      continue;
    llvm::SmallVector<const DeclRefExpr *, 4> Refs;
    llvm::SmallVector<const Stmt *, 8> Stack{E};
    while (!Stack.empty()) {
      const Stmt *S = Stack.pop_back_val();
      if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(S))
        Refs.push_back(DRE);
      if (S)
        for (const Stmt *Child : S->children())
          Stack.push_back(Child);
    }
    for (const DeclRefExpr *DRE : Refs) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD || !VD->isLocalVarDecl() || !Seen.insert(VD).second)
        continue;
      if (const Expr *Init = VD->getInit())
        Work.push_back({Init, Depth + 1});
      llvm::SmallVector<const Expr *, 4> Assigned;
      assignedValues(Body, VD, Assigned);
      for (const Expr *A : Assigned)
        if (startsBefore(A, Backward, SM))
          Work.push_back({A, Depth + 1});
    }
  }
  return {Found, false};
}

} // namespace

void Fp16WithoutGradScalerCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body,
                                               ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  // What the walk below looks for: an autocast dtype setter
  // (set_autocast_dtype, set_autocast_<device>_dtype) for the translation
  // unit's evidence; or a backward pass (isBackwardOrGradCall) with a float16
  // source before it: an autocast switch (set_autocast_enabled,
  // set_autocast_<device>_enabled, set_<device>_autocast_enabled), a scope
  // object of a class named like autocast, a module's to().
  const FunctionFacts &Shared = core().facts(FD, Ctx);
  if (!Shared.callsNamed(
          [](StringRef N) { return N.starts_with("set_autocast_") && N.ends_with("_dtype"); }) &&
      !(Shared.callsNamed([](StringRef N) { return N == "backward" || N == "grad"; }) &&
        Shared.callsNamed([](StringRef N) {
          return N == "to" || (N.starts_with("set_") && N.ends_with("enabled")) ||
                 containsInsensitive(N, "autocast");
        })))
    return;
  Facts F = collect(Shared, Ctx);
  // A CUDA dtype other than float16 set anywhere in the translation unit
  // (in main, a setup function): CUDA's default is no evidence then.
  for (const auto &[SetCall, Setter] : F.DtypeSetters)
    if (Setter.Device.mayBe(AutocastDevice{"CUDA"}) &&
        !isHalfDtypeName(scalarTypeName(Setter.Dtype, Ctx)))
      OtherCudaDtypeSet = true;
  if (F.Backwards.empty() || F.UsesScalerObject)
    return;
  const ParentMap &PM = Shared.parents();
  addSwitchSources(F, PM, Body, Ctx);
  auto SourceFor = [&](const Expr *S) { return sourceFor(S, F, PM, Body, SM); };

  for (const auto &[Backward, Loss] : F.Backwards) {
    auto [Found, Scaled] = lossSource(Backward, Loss, Body, SM, SourceFor);
    if (Scaled || !Found)
      continue;
    if (Found->What == Fp16Source::Switch && Found->DefaultDtype) {
      DefaultDtypeFindings.push_back(
          {Backward->getExprLoc(), Backward->getSourceRange(), compat::beginLoc(Found->At)});
      continue;
    }
    diag(Backward->getExprLoc(), LossMessage) << Backward->getSourceRange();
    switch (Found->What) {
    case Fp16Source::Switch:
      diag(compat::beginLoc(Found->At), SwitchNote, DiagnosticIDs::Note)
          << false << GradScalerSpelling;
      break;
    case Fp16Source::Scope:
      diag(compat::beginLoc(Found->At),
           "float16 autocast scope declared here; scale the loss with a gradient scaler before "
           "backward ('%0': scaler.scale(loss).backward(), scaler.step(optimizer), "
           "scaler.update())",
           DiagnosticIDs::Note)
          << GradScalerSpelling;
      break;
    case Fp16Source::HalfModule:
      diag(compat::beginLoc(Found->At),
           "the module is converted to float16 here; keep its weights in float32, compute under "
           "float16 autocast and scale the loss with a gradient scaler ('%0')",
           DiagnosticIDs::Note)
          << GradScalerSpelling;
      break;
    }
  }
}

void Fp16WithoutGradScalerCheck::reportAtEndOfUnit() {
  if (!OtherCudaDtypeSet)
    for (const DefaultDtypeFinding &F : DefaultDtypeFindings)
      reportDefaultDtype(F);
  DefaultDtypeFindings.clear();
  OtherCudaDtypeSet = false;
}

void Fp16WithoutGradScalerCheck::reportDefaultDtype(const DefaultDtypeFinding &F) {
  diag(F.Backward, LossMessage) << F.Range;
  diag(F.Switch, SwitchNote, DiagnosticIDs::Note) << true << GradScalerSpelling;
}

} // namespace clang::tidy::torch_check
