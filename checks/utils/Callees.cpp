//===--- Callees.cpp - libtorch-tidy --------------------------------------===//

#include "Callees.h"
#include "TorchNames.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_check {

bool isUserFunction(const FunctionDecl *FD, const ASTContext &Ctx) {
  return FD && !isInLibraryNamespace(FD) && !FD->isInStdNamespace() &&
         !Ctx.getSourceManager().isInSystemHeader(FD->getLocation());
}

bool isVirtualDispatch(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->isVirtual() || MD->hasAttr<FinalAttr>() || MD->getParent()->hasAttr<FinalAttr>())
    return false;
  const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
  if (!ME || ME->hasQualifier())
    return false; // Base::f(): no dispatch
  // An object (not a pointer or reference) has a known dynamic type.
  if (!ME->isArrow())
    if (const auto *DRE = dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && !VD->getType()->isReferenceType())
        return false;
  return true;
}

const FunctionDecl *followableCallee(const CallExpr *Call, const ASTContext &Ctx) {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isVirtualDispatch(Call))
    return nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->getParent()->isLambda())
    return nullptr;
  const FunctionDecl *Def = Callee->getDefinition();
  if (!Def || !isa_and_nonnull<CompoundStmt>(Def->getBody()) || !isUserFunction(Def, Ctx))
    return nullptr;
  return Def;
}

const FunctionDecl *patternKey(const FunctionDecl *FD) {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

const FunctionDecl *externalCallee(const CallExpr *Call, const ASTContext &Ctx) {
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || isVirtualDispatch(Call) || isInLibraryNamespace(Callee))
    return nullptr;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Callee); MD && MD->getParent()->isLambda())
    return nullptr;
  if (const FunctionDecl *Def = Callee->getDefinition(); Def && Def->hasBody())
    return nullptr;
  if (Callee->isImplicit() || Callee->getBuiltinID())
    return nullptr;
  SourceLocation Loc = Callee->getLocation();
  const SourceManager &SM = Ctx.getSourceManager();
  if (Loc.isInvalid() || SM.isInSystemHeader(Loc))
    return nullptr;
  return patternKey(Callee);
}

/// Member operators called as `a op b` put the object first; so do static
/// ones (C++23 `static operator()`: the object is still argument 0, evaluated
/// and not passed).
static unsigned argumentShift(const CallExpr *Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()))
      return 1;
  return 0;
}

const Expr *argumentFor(const CallExpr *Call, unsigned ParamIndex) {
  if (!Call)
    return nullptr;
  unsigned I = ParamIndex + argumentShift(Call);
  if (I >= Call->getNumArgs())
    return nullptr;
  const Expr *Arg = Call->getArg(I);
  return isa<CXXDefaultArgExpr>(Arg) ? nullptr : Arg;
}

int parameterIndexFor(const CallExpr *Call, const Expr *Arg) {
  if (!Call || !Arg)
    return -1;
  const FunctionDecl *Callee = Call->getDirectCallee();
  unsigned Shift = argumentShift(Call);
  const Expr *Wanted = Arg->IgnoreParenImpCasts();
  for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
    if (Call->getArg(I)->IgnoreParenImpCasts() != Wanted)
      continue;
    unsigned P = I - Shift;
    if (!Callee || P >= Callee->getNumParams())
      return -1;
    return static_cast<int>(P);
  }
  return -1;
}

const CXXMethodDecl *holderForward(const CallExpr *Call) {
  const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() < 1)
    return nullptr;
  const CXXRecordDecl *RD = Op->getArg(0)->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition() || !isModuleHolderClass(RD))
    return nullptr;
  // The Impl: the argument of the ModuleHolder<Impl> the class derives from.
  const CXXRecordDecl *Impl = nullptr;
  auto ImplOf = [&](const CXXRecordDecl *C) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(C);
    if (!Spec || !Spec->getIdentifier() || Spec->getName() != "ModuleHolder" ||
        Spec->getTemplateArgs().size() != 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return false;
    Impl = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
    return true;
  };
  if (!ImplOf(RD))
    RD->forallBases([&](const CXXRecordDecl *Base) { return !ImplOf(Base); });
  if (!Impl || !Impl->hasDefinition())
    return nullptr;
  const CXXMethodDecl *Forward = nullptr;
  for (const NamedDecl *ND : Impl->lookup(&Impl->getASTContext().Idents.get("forward"))) {
    const auto *MD = dyn_cast<CXXMethodDecl>(ND);
    if (!MD || Forward)
      return nullptr;
    Forward = MD;
  }
  return Forward;
}

} // namespace clang::tidy::torch_check
