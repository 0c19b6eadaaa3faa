//===--- Autocast.cpp - libtorch-tidy -------------------------------------===//

#include "Autocast.h"
#include "TorchNames.h"

#include "clang/AST/Decl.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch_check {

static const FunctionDecl *autocastCallee(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return nullptr;
  return isNamed(dyn_cast<NamespaceDecl>(FD->getDeclContext()), names::AutocastNamespace) ? FD
                                                                                          : nullptr;
}

bool isAutocastApiCall(const CallExpr *Call) { return autocastCallee(Call) != nullptr; }

/// The enumerator of the enum type of \p E that \p E evaluates to.
static llvm::StringRef enumeratorName(const Expr *E, const ASTContext &Ctx,
                                      llvm::StringRef EnumName) {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return {};
  const auto *ET = E->IgnoreParenImpCasts()->getType()->getAs<EnumType>();
  if (!ET)
    ET = E->getType()->getAs<EnumType>();
  const EnumDecl *Enum = ET ? ET->getDecl() : nullptr;
  if (!Enum || !Enum->getIdentifier() || Enum->getName() != EnumName ||
      !isInLibraryNamespace(Enum))
    return {};
  Expr::EvalResult Result;
  if (!E->EvaluateAsRValue(Result, Ctx) || !Result.Val.isInt())
    return {};
  for (const EnumConstantDecl *EC : Enum->enumerators())
    if (llvm::APSInt::isSameValue(EC->getInitVal(), Result.Val.getInt()))
      return EC->getName();
  return {};
}

llvm::StringRef scalarTypeName(const Expr *E, const ASTContext &Ctx) {
  return enumeratorName(E, Ctx, "ScalarType");
}

/// The device a per-device spelling names: "" for set_enabled (CUDA), "gpu",
/// "cpu", "xpu", ... as the c10::DeviceType enumerator.
static llvm::StringRef deviceOfInfix(llvm::StringRef Infix) {
  return llvm::StringSwitch<llvm::StringRef>(Infix)
      .Cases("", "gpu", "CUDA")
      .Case("cpu", "CPU")
      .Case("xpu", "XPU")
      .Case("mtia", "MTIA")
      .Case("xla", "XLA")
      .Case("hpu", "HPU")
      .Case("ipu", "IPU")
      .Case("privateuseone", "PrivateUse1")
      .Default("");
}

static AutocastDevice deviceOfArg(const Expr *Arg, const ASTContext &Ctx) {
  AutocastDevice D;
  D.Arg = Arg;
  D.Name = enumeratorName(Arg, Ctx, "DeviceType");
  return D;
}

AutocastSwitch classifyAutocastSwitch(const CallExpr *Call, const ASTContext &Ctx) {
  AutocastSwitch S;
  const FunctionDecl *FD = autocastCallee(Call);
  if (!FD)
    return S;
  llvm::StringRef Name = FD->getName();
  const Expr *Value = nullptr;
  if (Name == "set_autocast_enabled" && Call->getNumArgs() == 2) {
    S.Device = deviceOfArg(Call->getArg(0), Ctx);
    S.DeviceGeneric = true;
    Value = Call->getArg(1);
  } else if (Name.consume_front("set_") && Name.consume_back("enabled") &&
             Call->getNumArgs() == 1) {
    Name.consume_back("_");
    if (Name == "autocast_cache") // set_autocast_cache_enabled: not a switch
      return S;
    S.Device.Name = deviceOfInfix(Name);
    if (S.Device.Name.empty())
      return S;
    Value = Call->getArg(0);
  } else {
    return S;
  }
  bool On = false;
  if (Value->isValueDependent() || !Value->EvaluateAsBooleanCondition(On, Ctx))
    S.Value = AutocastSwitch::Unknown;
  else
    S.Value = On ? AutocastSwitch::Enables : AutocastSwitch::Disables;
  return S;
}

AutocastDtypeSetter classifyAutocastDtypeSetter(const CallExpr *Call, const ASTContext &Ctx) {
  AutocastDtypeSetter S;
  const FunctionDecl *FD = autocastCallee(Call);
  if (!FD)
    return S;
  llvm::StringRef Name = FD->getName();
  if (Name == "set_autocast_dtype" && Call->getNumArgs() == 2) {
    S.Device = deviceOfArg(Call->getArg(0), Ctx);
    S.Dtype = Call->getArg(1);
    return S;
  }
  if (Name.consume_front("set_autocast_") && Name.consume_back("_dtype") &&
      Call->getNumArgs() == 1) {
    S.Device.Name = deviceOfInfix(Name);
    if (!S.Device.Name.empty())
      S.Dtype = Call->getArg(0);
  }
  return S;
}

llvm::StringRef defaultAutocastDtype(llvm::StringRef Device) {
  if (Device == "CUDA")
    return "Half";
  if (Device == "CPU" || Device == "XPU")
    return "BFloat16";
  return {};
}

} // namespace clang::tidy::torch_check
