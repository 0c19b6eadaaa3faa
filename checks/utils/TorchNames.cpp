//===--- TorchNames.cpp - libtorch-tidy -----------------------------------===//

#include "TorchNames.h"
#include "ASTHelpers.h"
#include "TorchMembers.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

bool isNamed(const NamedDecl *D, llvm::StringRef QualifiedName) {
  if (!D)
    return false;
  QualifiedName.consume_front("::");
  llvm::SmallVector<llvm::StringRef, 6> Parts;
  QualifiedName.split(Parts, "::");
  const DeclContext *DC = nullptr;
  for (auto It = Parts.rbegin(), End = Parts.rend(); It != End; ++It) {
    const IdentifierInfo *II = D->getIdentifier();
    if (!II || II->getName() != *It)
      return false;
    DC = D->getDeclContext();
    while (DC && (DC->isInlineNamespace() || DC->isTransparentContext()))
      DC = DC->getParent();
    if (!DC)
      return false;
    if (std::next(It) == End)
      break;
    D = dyn_cast<NamedDecl>(DC);
    if (!D)
      return false;
  }
  return DC && DC->isTranslationUnit();
}

// Whether D was declared in LibTorch's own headers, not in the user's code:
// a system header (LibTorch is reached through -isystem by CMake's imported
// targets, Debian's /usr/include and the wheel's include/ given with -isystem),
// or a header under LibTorch's own directories when a vendored copy is
// included with -I. A project that opens `namespace torch` in its own files
// (a trainer, a custom module) writes user code, which the checks analyse.
static bool isDeclaredInLibraryHeader(const Decl *D) {
  const SourceManager &SM = D->getASTContext().getSourceManager();
  SourceLocation Loc = D->getLocation();
  if (Loc.isInvalid())
    return true; // implicit declarations: as before, LibTorch's when their namespace is
  Loc = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(Loc))
    return true;
  llvm::StringRef File = SM.getFilename(Loc);
  if (File.empty())
    return true;
  for (llvm::StringRef Dir : {"/ATen/", "/c10/", "/caffe2/", "/torch/csrc/"})
    if (File.contains(Dir) || File.starts_with(Dir.drop_front()))
      return true;
  for (llvm::StringRef Header : {"torch/torch.h", "torch/script.h", "torch/extension.h", "torch/library.h",
                                 "torch/custom_class.h", "torch/custom_class_detail.h"})
    if (File.ends_with(Header))
      return true;
  return false;
}

bool isInLibraryNamespace(const Decl *D) {
  if (!D)
    return false;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent()) {
    const auto *NS = dyn_cast<NamespaceDecl>(DC);
    if (!NS || NS->isInlineNamespace())
      continue;
    const DeclContext *Parent = NS->getParent();
    while (Parent && (Parent->isInlineNamespace() || Parent->isTransparentContext()))
      Parent = Parent->getParent();
    if (!Parent || !Parent->isTranslationUnit())
      continue;
    if (const IdentifierInfo *II = NS->getIdentifier())
      for (llvm::StringRef Name : names::LibraryNamespaces)
        if (II->getName() == Name)
          return isDeclaredInLibraryHeader(D);
  }
  return false;
}

static bool isDerivedFromOrSameImpl(const CXXRecordDecl *RD, llvm::StringRef Name, unsigned Depth) {
  if (!RD || Depth > 16)
    return false;
  if (isNamed(RD, Name))
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    if (isNamed(Spec->getSpecializedTemplate(), Name))
      return true;
  RD = RD->getDefinition();
  if (!RD)
    return false;
  for (const CXXBaseSpecifier &Base : RD->bases()) {
    const CXXRecordDecl *BD = Base.getType()->getAsCXXRecordDecl();
    if (!BD) {
      // A base that names a class template specialisation not yet instantiated.
      if (const auto *TST = Base.getType()->getAs<TemplateSpecializationType>())
        if (const TemplateDecl *TD = TST->getTemplateName().getAsTemplateDecl())
          if (isNamed(TD, Name))
            return true;
      continue;
    }
    if (isDerivedFromOrSameImpl(BD, Name, Depth + 1))
      return true;
  }
  return false;
}

bool isDerivedFromOrSame(const CXXRecordDecl *RD, llvm::StringRef QualifiedName) {
  return isDerivedFromOrSameImpl(RD, QualifiedName, 0);
}

const CXXRecordDecl *classOf(QualType T, bool LookThroughPointers) {
  if (T.isNull())
    return nullptr;
  T = T.getNonReferenceType();
  if (LookThroughPointers)
    while (T->isPointerType())
      T = T->getPointeeType();
  return T->getAsCXXRecordDecl();
}

bool isTensorType(QualType T) {
  const CXXRecordDecl *RD = classOf(T);
  return RD && isNamed(RD, names::Tensor);
}

bool mayHoldTensor(QualType T) {
  if (T.isNull())
    return false;
  if (T->isDependentType() || T->isUndeducedType())
    return true;
  if (isTensorType(T))
    return true;
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(classOf(T, /*LookThroughPointers=*/true));
  if (!Spec)
    return false;
  for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray()) {
    if (Arg.getKind() == TemplateArgument::Type && isTensorType(Arg.getAsType()))
      return true;
    if (Arg.getKind() == TemplateArgument::Pack)
      for (const TemplateArgument &P : Arg.pack_elements())
        if (P.getKind() == TemplateArgument::Type && isTensorType(P.getAsType()))
          return true;
  }
  return false;
}

bool isModuleClass(const CXXRecordDecl *RD) { return isDerivedFromOrSame(RD, names::Module); }
bool isModuleHolderClass(const CXXRecordDecl *RD) {
  return isDerivedFromOrSame(RD, names::ModuleHolder);
}
bool isJitModuleClass(const CXXRecordDecl *RD) { return isDerivedFromOrSame(RD, names::JitModule); }
bool isOptimizerClass(const CXXRecordDecl *RD) { return isDerivedFromOrSame(RD, names::Optimizer); }
bool isAnyModuleLike(const CXXRecordDecl *RD) {
  return isModuleClass(RD) || isModuleHolderClass(RD) || isJitModuleClass(RD);
}

bool isOptimizerConstruction(const Expr *E) {
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    return Ctor && Construct->getNumArgs() >= 1 && !Ctor->isCopyOrMoveConstructor() &&
           isOptimizerClass(Ctor->getParent());
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() ||
      (FD->getName() != "make_unique" && FD->getName() != "make_shared") ||
      !FD->isInStdNamespace() || Call->getNumArgs() == 0)
    return false;
  const auto *Args = FD->getTemplateSpecializationArgs();
  return Args && Args->size() >= 1 && Args->get(0).getKind() == TemplateArgument::Type &&
         isOptimizerClass(Args->get(0).getAsType()->getAsCXXRecordDecl());
}

static const CXXRecordDecl *calleeClass(const CallExpr *Call) {
  if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Call->getDirectCallee()))
    return MD->getParent();
  return nullptr;
}

static bool calleeIs(const CallExpr *Call, llvm::StringRef Name) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return false;
  const IdentifierInfo *II = FD->getIdentifier();
  return II && II->getName() == Name;
}

ForwardKind classifyForwardCall(const CallExpr *Call) {
  if (!Call)
    return ForwardKind::None;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Op->getOperator() != OO_Call)
      return ForwardKind::None;
    const CXXRecordDecl *RD = calleeClass(Call);
    if (isModuleHolderClass(RD))
      return ForwardKind::HolderCall;
    if (isJitModuleClass(RD))
      return ForwardKind::JitForward;
    return ForwardKind::None;
  }
  if (!isa<CXXMemberCallExpr>(Call) || !calleeIs(Call, "forward"))
    return ForwardKind::None;
  const CXXRecordDecl *RD = calleeClass(Call);
  if (!RD)
    return ForwardKind::None;
  if (isNamed(RD, names::AnyModule))
    return ForwardKind::AnyModuleForward;
  if (isJitModuleClass(RD))
    return ForwardKind::JitForward;
  if (isModuleClass(RD))
    return ForwardKind::ModuleForward;
  return ForwardKind::None;
}

const Expr *stripHolderArrow(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Arrow && Op->getNumArgs() >= 1)
      return Op->getArg(0)->IgnoreParenImpCasts();
  return E;
}

const Expr *forwardCallObject(const CallExpr *Call) {
  if (!isForwardCall(Call))
    return nullptr;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    return Op->getArg(0)->IgnoreParenImpCasts();
  return stripHolderArrow(cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument());
}

bool isBackwardOrGradCall(const CallExpr *Call) {
  if (!Call)
    return false;
  if (isa<CXXMemberCallExpr>(Call)) {
    if (!calleeIs(Call, "backward"))
      return false;
    const CXXRecordDecl *RD = calleeClass(Call);
    return isDerivedFromOrSame(RD, names::Tensor) || isDerivedFromOrSame(RD, names::TensorBase);
  }
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && (isNamed(FD, names::AutogradBackward) || isNamed(FD, names::AutogradGrad));
}

llvm::StringRef moduleMethodName(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  if (!MC)
    return {};
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getIdentifier())
    return {};
  if (!isAnyModuleLike(MD->getParent()) && !isAnyModuleLike(MC->getRecordDecl()))
    return {};
  return MD->getName();
}

ModeSwitch moduleModeSwitch(const CallExpr *Call, const ASTContext &Ctx) {
  llvm::StringRef Method = moduleMethodName(Call);
  if (Method == "eval")
    return ModeSwitch::Eval;
  if (Method != "train")
    return ModeSwitch::None;
  const Expr *Arg = Call->getNumArgs() ? Call->getArg(0) : nullptr;
  if (Arg && !isa<CXXDefaultArgExpr>(Arg) && knownBool(Arg, Ctx) == false)
    return ModeSwitch::Eval;
  return ModeSwitch::Train;
}

SetGradEnabled classifySetGradEnabled(const CallExpr *Call, const ASTContext &Ctx) {
  if (!Call || !calleeIs(Call, "set_enabled") || Call->getNumArgs() != 1)
    return SetGradEnabled::NotACall;
  if (!isNamed(calleeClass(Call), names::GradMode))
    return SetGradEnabled::NotACall;
  std::optional<bool> Value = knownBool(Call->getArg(0), Ctx);
  if (!Value)
    return SetGradEnabled::Unknown;
  return *Value ? SetGradEnabled::Enables : SetGradEnabled::Disables;
}

namespace {
/// The device type \p E names ("CPU", "CUDA"), through constructions and
/// casts: a LibTorch constant (`torch::kCPU`), an enumerator of
/// c10::DeviceType, a string literal ("cuda:0"). "" otherwise.
llvm::StringRef namedDeviceType(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() < 1)
        return "";
      E = Construct->getArg(0);
      continue;
    }
    if (const auto *Cast = dyn_cast<CastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *SL = dyn_cast<StringLiteral>(E)) {
      if (SL->getCharByteWidth() != 1)
        return "";
      llvm::StringRef S = SL->getString();
      if (S == "cpu" || S.starts_with("cpu:"))
        return "CPU";
      if (S == "cuda" || S.starts_with("cuda:"))
        return "CUDA";
      return "";
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        return isNamed(VD, names::KCPU) ? "CPU" : isNamed(VD, names::KCUDA) ? "CUDA" : "";
      if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
        return isNamed(dyn_cast<NamedDecl>(EC->getDeclContext()), names::DeviceTypeEnum)
                   ? EC->getName()
                   : "";
      return "";
    }
    return "";
  }
  return "";
}
} // namespace

bool isCPUDeviceExpr(const Expr *E) { return namedDeviceType(E) == "CPU"; }

bool isCUDADeviceExpr(const Expr *E) { return namedDeviceType(E) == "CUDA"; }

bool isClockReading(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    const CXXRecordDecl *RD = MD->getParent();
    return MD->isStatic() && MD->getName() == "now" &&
           llvm::any_of(names::ChronoClocks, [RD](llvm::StringRef N) { return isNamed(RD, N); });
  }
  return FD->getName() == names::CClock && FD->getNumParams() == 0 &&
         (FD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
          FD->isInStdNamespace());
}

bool isDeviceSynchronizeCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  if (isNamed(FD, names::CudaSynchronize))
    return true;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return MD->getName() == "synchronize" &&
           (isNamed(MD->getParent(), names::CUDAStreamClass) ||
            isNamed(MD->getParent(), names::CUDAEvent) || isNamed(MD->getParent(), names::StreamClass) ||
            isNamed(MD->getParent(), names::Event));
  return llvm::is_contained(names::CudaRuntimeSyncs, FD->getName()) &&
         FD->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

bool isJitLoadCall(const CallExpr *Call) {
  return Call && isNamed(Call->getDirectCallee(), names::JitLoad);
}

bool isFromBlobCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && (isNamed(FD, names::TorchFromBlob) || isNamed(FD, names::AtFromBlob));
}

std::optional<unsigned> sizedFactoryOptionsParam(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || !llvm::is_contained(names::SizedFactories, FD->getName()))
    return std::nullopt;
  const DeclContext *DC = FD->getDeclContext();
  while (DC && DC->isInlineNamespace())
    DC = DC->getParent();
  const auto *NS = dyn_cast_or_null<NamespaceDecl>(DC);
  if (!NS || !(isNamed(NS, names::TorchNamespace) || isNamed(NS, names::AtNamespace)))
    return std::nullopt;
  for (unsigned I = 0, N = FD->getNumParams(); I < N; ++I)
    if (isTensorOptionsType(FD->getParamDecl(I)->getType()))
      return I;
  return std::nullopt;
}

bool fromBlobHasDeleter(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  for (const ParmVarDecl *P : FD->parameters()) {
    const CXXRecordDecl *RD = classOf(P->getType());
    if (RD && RD->getName() == "function" && RD->isInStdNamespace())
      return true;
  }
  return false;
}

const Expr *modelLoadPathArg(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || Call->getNumArgs() == 0)
    return nullptr;
  if (isNamed(FD, names::JitLoad))
    return Call->getArg(0);
  if (isNamed(FD, names::TorchLoad))
    return Call->getNumArgs() >= 2 ? Call->getArg(1) : nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    if (MC->getMethodDecl() && MC->getMethodDecl()->getName() == "load_from" &&
        isNamed(MC->getMethodDecl()->getParent(), names::InputArchive))
      return Call->getArg(0);
  return nullptr;
}

bool isAOTILoaderClass(const CXXRecordDecl *RD) {
  return RD && (isNamed(RD, names::AOTIModelPackageLoader) ||
                isDerivedFromOrSame(RD, names::AOTIModelContainerRunner));
}

bool mayNameModelLoad(llvm::StringRef Name) {
  return Name == "load" || Name == "load_from" || Name == "AOTIModelPackageLoader" ||
         Name.starts_with("AOTIModelContainerRunner") || Name == "make_unique" ||
         Name == "make_shared";
}

const Expr *aotiLoadPathArg(const Expr *E) {
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (!Ctor || Ctor->isCopyOrMoveConstructor() || Construct->getNumArgs() == 0 ||
        !isAOTILoaderClass(Ctor->getParent()))
      return nullptr;
    return Construct->getArg(0);
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || !FD->isInStdNamespace() || Call->getNumArgs() == 0 ||
      (FD->getName() != "make_unique" && FD->getName() != "make_shared"))
    return nullptr;
  const auto *Args = FD->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 || Args->get(0).getKind() != TemplateArgument::Type ||
      !isAOTILoaderClass(Args->get(0).getAsType()->getAsCXXRecordDecl()))
    return nullptr;
  return Call->getArg(0);
}

static bool isTensorMethod(const CXXMemberCallExpr *Call, llvm::StringRef Name) {
  const CXXMethodDecl *MD = Call ? Call->getMethodDecl() : nullptr;
  return MD && MD->getDeclName().isIdentifier() && MD->getName() == Name &&
         (isNamed(MD->getParent(), names::Tensor) || isNamed(MD->getParent(), names::TensorBase));
}
bool isRegisterHookCall(const CXXMemberCallExpr *Call) { return isTensorMethod(Call, "register_hook"); }
bool isRemoveHookCall(const CXXMemberCallExpr *Call) { return isTensorMethod(Call, "remove_hook"); }

bool isEmptyCacheCall(const CallExpr *Call) {
  if (!Call || !calleeIs(Call, "emptyCache"))
    return false;
  const FunctionDecl *FD = Call->getDirectCallee();
  const DeclContext *DC = FD->getDeclContext();
  if (const auto *RD = dyn_cast<CXXRecordDecl>(DC))
    DC = RD->getDeclContext();
  return isNamed(dyn_cast<NamespaceDecl>(DC), names::CUDACachingAllocatorNamespace);
}

CudaStreamCall classifyCudaStreamCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return CudaStreamCall::None;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isNamed(MD->getParent(), names::CUDAStreamClass) ||
                   isNamed(MD->getParent(), names::StreamClass)
               ? CudaStreamCall::OtherApi
               : CudaStreamCall::None;
  if (!isNamed(dyn_cast<NamespaceDecl>(FD->getDeclContext()), names::CudaNamespace))
    return CudaStreamCall::None;
  if (isNamed(FD, names::SetCurrentCUDAStream))
    return CudaStreamCall::Set;
  if (isNamed(FD, names::GetCurrentCUDAStream))
    return CudaStreamCall::GetCurrent;
  if (isNamed(FD, names::GetDefaultCUDAStream))
    return CudaStreamCall::GetDefault;
  if (isNamed(FD, names::GetStreamFromPool))
    return CudaStreamCall::FromPool;
  return CudaStreamCall::OtherApi;
}

bool isStreamGuardType(QualType T) {
  const CXXRecordDecl *RD = T.isNull() ? nullptr : T->getAsCXXRecordDecl();
  return RD && llvm::any_of(names::StreamGuards,
                            [&](llvm::StringRef Name) { return isNamed(RD, Name); });
}

bool isMakeDataLoaderCall(const CallExpr *Call) {
  return Call && isNamed(Call->getDirectCallee(), names::MakeDataLoader);
}

static bool calleeInLibrary(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD)
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isInLibraryNamespace(MD->getParent()) || isInLibraryNamespace(MD);
  return isInLibraryNamespace(FD);
}

bool isLossFunctionCall(const CallExpr *Call) {
  if (!Call || isa<CXXMemberCallExpr>(Call) || !calleeInLibrary(Call))
    return false;
  const IdentifierInfo *II = Call->getDirectCallee()->getIdentifier();
  if (!II)
    return false;
  llvm::StringRef Name = II->getName();
  return Name.ends_with("_loss") || Name.starts_with("nll_loss") ||
         Name.starts_with("binary_cross_entropy") || Name == "cross_entropy" ||
         Name == "kl_div";
}

bool isNoGradientCall(const CallExpr *Call) {
  if (!Call || !calleeInLibrary(Call))
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    switch (Op->getOperator()) {
    case OO_EqualEqual:
    case OO_ExclaimEqual:
    case OO_Less:
    case OO_Greater:
    case OO_LessEqual:
    case OO_GreaterEqual:
    case OO_AmpAmp:
    case OO_PipePipe:
    case OO_Exclaim:
      return true;
    default:
      return false;
    }
  }
  const IdentifierInfo *II = Call->getDirectCallee()->getIdentifier();
  if (!II)
    return false;
  static constexpr llvm::StringLiteral NoGradient[] = {
      "argmax", "argmin", "eq", "ne", "lt", "gt", "le", "ge", "less", "greater", "less_equal",
      "greater_equal", "not_equal", "equal", "logical_and", "logical_or", "logical_not",
      "logical_xor", "isnan", "isinf", "isfinite", "signbit", "zeros_like", "ones_like",
      "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "grad", "data",
      "nonzero", "bincount", "histc", "argsort", "all", "any"};
  return llvm::is_contained(NoGradient, II->getName());
}

bool isReductionIndices(const CallExpr *Call) {
  const FunctionDecl *Get = Call ? Call->getDirectCallee() : nullptr;
  if (!Get || !Get->isInStdNamespace() || !Get->getIdentifier() || Get->getName() != "get" ||
      Call->getNumArgs() != 1)
    return false;
  const TemplateArgumentList *Args = Get->getTemplateSpecializationArgs();
  if (!Args || Args->size() < 1 || Args->get(0).getKind() != TemplateArgument::Integral ||
      Args->get(0).getAsIntegral() != 1)
    return false;
  const Expr *Tuple = Call->getArg(0)->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Tuple)) // a local initialised by the call
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        VD && VD->hasLocalStorage() && !VD->getType()->isReferenceType() && VD->getInit())
      Tuple = VD->getInit();
  const auto *Source = dyn_cast<CallExpr>(Tuple->IgnoreImplicit()->IgnoreParens());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Tuple->IgnoreImplicit()->IgnoreParens());
      Construct && Construct->getNumArgs() == 1) // a std::tuple built from the returned one
    Source = dyn_cast<CallExpr>(Construct->getArg(0)->IgnoreImplicit()->IgnoreParens());
  if (!Source || !calleeInLibrary(Source) || !Source->getDirectCallee()->getIdentifier())
    return false;
  static constexpr llvm::StringLiteral WithIndices[] = {
      "max", "min", "sort", "topk", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin"};
  return llvm::is_contained(WithIndices, Source->getDirectCallee()->getName());
}

const EnumConstantDecl *scalarTypeConstant(const Expr *E, const DeclRefExpr **Spelled) {
  if (Spelled)
    *Spelled = nullptr;
  // Bounded: LibTorch's constants are at most three aliases deep
  // (kF64 -> kFloat64 -> kDouble -> ScalarType::Double).
  for (int Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
      continue;
    }
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BT->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      if (Construct->getNumArgs() != 1)
        return nullptr;
      E = Construct->getArg(0);
      continue;
    }
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    if (!DRE)
      return nullptr;
    if (Spelled && !*Spelled)
      *Spelled = DRE;
    if (const auto *EC = dyn_cast<EnumConstantDecl>(DRE->getDecl())) {
      const auto *Enum = dyn_cast<EnumDecl>(EC->getDeclContext());
      return Enum && isNamed(Enum, names::ScalarTypeEnum) ? EC : nullptr;
    }
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || !VD->getType().isConstQualified() || !isInLibraryNamespace(VD))
      return nullptr;
    E = VD->getInit();
  }
  return nullptr;
}

namespace {
/// The element types of AT_FORALL_SCALAR_TYPES_WITH_COMPLEX with their sizes.
struct ScalarTypeInfo {
  llvm::StringLiteral Name;
  unsigned Size;
};
constexpr ScalarTypeInfo ScalarTypes[] = {
    {"Byte", 1},  {"Char", 1},         {"Short", 2},         {"Int", 4},           {"Long", 8},
    {"Half", 2},  {"Float", 4},        {"Double", 8},        {"ComplexHalf", 4},   {"ComplexFloat", 8},
    {"ComplexDouble", 16}, {"Bool", 1}, {"BFloat16", 2}};
} // namespace

unsigned scalarTypeSize(llvm::StringRef Name) {
  for (const ScalarTypeInfo &I : ScalarTypes)
    if (I.Name == Name)
      return I.Size;
  return 0;
}

llvm::StringRef scalarTypeOfElement(QualType T, const ASTContext &Ctx) {
  if (T.isNull() || T->isDependentType() || T->isIncompleteType())
    return "";
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *BT = T->getAs<BuiltinType>()) {
    switch (BT->getKind()) {
    case BuiltinType::Bool:
      return "Bool";
    case BuiltinType::UChar:
      return "Byte";
    case BuiltinType::SChar:
      return "Char";
    case BuiltinType::Short:
      return "Short";
    case BuiltinType::Int:
    case BuiltinType::Long:
    case BuiltinType::LongLong:
      // int64_t is long on LP64, long long elsewhere; long is 32-bit on LLP64.
      switch (Ctx.getTypeSize(T)) {
      case 32:
        return "Int";
      case 64:
        return "Long";
      default:
        return "";
      }
    case BuiltinType::Float:
      return "Float";
    case BuiltinType::Double:
      return "Double";
    default:
      return ""; // plain char, unsigned wider types, long double, __fp16...
    }
  }
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return "";
  if (isNamed(RD, names::Half))
    return "Half";
  if (isNamed(RD, names::BFloat16))
    return "BFloat16";
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  bool StdComplex = RD->isInStdNamespace() && RD->getIdentifier() && RD->getName() == "complex";
  if (!Spec || !(StdComplex || isNamed(RD, names::Complex)) || Spec->getTemplateArgs().size() != 1 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return "";
  llvm::StringRef Part = scalarTypeOfElement(Spec->getTemplateArgs()[0].getAsType(), Ctx);
  if (Part == "Float")
    return "ComplexFloat";
  if (Part == "Double")
    return "ComplexDouble";
  if (Part == "Half" && !StdComplex)
    return "ComplexHalf";
  return "";
}

bool isTensorOptionsType(QualType T) {
  const CXXRecordDecl *RD = classOf(T);
  return RD && isNamed(RD, names::TensorOptions);
}

bool isDeviceOrDeviceTypeType(QualType T) {
  if (T.isNull())
    return false;
  T = T.getNonReferenceType();
  if (const auto *ET = T->getAs<EnumType>())
    return isNamed(ET->getDecl(), names::DeviceTypeEnum);
  const CXXRecordDecl *RD = classOf(T);
  return RD && isNamed(RD, names::DeviceClass);
}

const Expr *toArgumentDevice(const Expr *Arg) {
  const Expr *E = Arg;
  // Each step strips one implicit node or construction; real code has a few.
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = BT->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(Next);
             CE && !isa<CXXTemporaryObjectExpr>(CE) && CE->getNumArgs() > 0 &&
             (isTensorOptionsType(CE->getType()) || isDeviceOrDeviceTypeType(CE->getType()))) {
      for (unsigned I = 1; I < CE->getNumArgs(); ++I)
        if (!isa<CXXDefaultArgExpr>(CE->getArg(I)))
          return nullptr;
      Next = CE->getArg(0);
    }
    if (Next == E)
      break;
    E = Next;
  }
  return E && isDeviceOrDeviceTypeType(E->getType()) ? E : nullptr;
}

bool isScalarTypeType(QualType T) {
  if (T.isNull())
    return false;
  const auto *ET = T.getNonReferenceType()->getAs<EnumType>();
  return ET && isNamed(ET->getDecl(), names::ScalarTypeEnum);
}

bool isIntegralScalarTypeExpr(const Expr *E) {
  const EnumConstantDecl *EC = E ? scalarTypeConstant(E) : nullptr;
  if (!EC)
    return false;
  static constexpr llvm::StringLiteral Integral[] = {
      "Byte", "Char", "Short", "Int", "Long", "Bool", "QInt8", "QUInt8", "QInt32",
      "QUInt4x2", "QUInt2x4", "UInt16", "UInt32", "UInt64"};
  return llvm::is_contained(Integral, EC->getName());
}

// ---- tensor members, containers ------------------------------------------

llvm::StringRef tensorMethodName(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier())
    return {};
  if (!isDerivedFromOrSame(MD->getParent(), names::Tensor) &&
      !isDerivedFromOrSame(MD->getParent(), names::TensorBase))
    return {};
  return MD->getName();
}

TensorMethodKind classifyTensorMethod(const CallExpr *Call) {
  llvm::StringRef Name = tensorMethodName(Call);
  if (Name.empty())
    return TensorMethodKind::Other;
  if (Name == "detach" || Name == "detach_")
    return TensorMethodKind::Detach;
  if (Name == "item" || Name == "cpu")
    return TensorMethodKind::Sync;
  if (Name == "to" && Call->getNumArgs() >= 1 && isCPUDeviceExpr(Call->getArg(0)))
    return TensorMethodKind::Sync;
  // Members ending in '_' write the tensor, except those that only change
  // autograd metadata.
  if (Name.ends_with("_") && Name != "requires_grad_" && Name != "retain_grad_")
    return TensorMethodKind::InPlace;
  static constexpr llvm::StringLiteral Views[] = {
      "view",      "view_as",   "select",  "narrow",  "slice",      "t",       "transpose",
      "permute",   "squeeze",   "unsqueeze", "expand", "expand_as", "unfold",  "diagonal",
      "as_strided", "alias",    "real",    "imag",    "unbind",     "split",   "chunk",
      "index"};
  if (llvm::is_contained(Views, Name))
    return TensorMethodKind::View;
  return TensorMethodKind::Other;
}

bool isContainerInsertCall(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || !MD->getParent()->isInStdNamespace())
    return false;
  static constexpr llvm::StringLiteral Inserts[] = {"push_back", "emplace_back", "insert",
                                                    "emplace",   "push_front",   "emplace_front",
                                                    "push",      "insert_or_assign"};
  return llvm::is_contained(Inserts, MD->getName());
}

TrainingCall classifyTrainingCall(const CallExpr *Call) {
  if (!Call)
    return TrainingCall::None;
  if (isBackwardOrGradCall(Call)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && isNamed(FD, names::AutogradGrad) ? TrainingCall::Grad : TrainingCall::Backward;
  }
  const CXXRecordDecl *RD = calleeClass(Call);
  if (calleeIs(Call, "step"))
    return isa<CXXMemberCallExpr>(Call) && isOptimizerClass(RD) ? TrainingCall::Step
                                                                : TrainingCall::None;
  if (!calleeIs(Call, "zero_grad"))
    return TrainingCall::None;
  if (isOptimizerClass(RD))
    return TrainingCall::OptimizerZeroGrad;
  if (isAnyModuleLike(RD) || !moduleMethodName(Call).empty())
    return TrainingCall::ModuleZeroGrad;
  return TrainingCall::None;
}

} // namespace clang::tidy::torch_check

namespace clang::tidy::torch_check {

namespace {

/// The integer indices of the braced list \p Arg of Tensor::index or
/// index_put_ (`{i, j}` as an initializer_list or ArrayRef of TensorIndex);
/// false when an element is not an integer (or the list is not braced).
bool integerIndexList(const Expr *Arg, llvm::SmallVectorImpl<const Expr *> &Out) {
  const Expr *E = skipImplicitTemporaries(Arg);
  for (unsigned Depth = 0; E && Depth < 8 && !isa<InitListExpr>(E); ++Depth) {
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
      E = skipImplicitTemporaries(IL->getSubExpr());
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
      E = skipImplicitTemporaries(CE->getArg(0));
    else
      return false;
  }
  const auto *List = dyn_cast_or_null<InitListExpr>(E);
  if (!List || List->getNumInits() == 0)
    return false;
  llvm::SmallVector<const Expr *, 4> Found;
  for (const Expr *Init : List->inits()) {
    const auto *CE = dyn_cast<CXXConstructExpr>(skipImplicitTemporaries(Init));
    if (!CE || CE->getNumArgs() != 1 || !isNamed(CE->getConstructor()->getParent(), names::TensorIndex))
      return false;
    QualType P = CE->getConstructor()->getParamDecl(0)->getType();
    if (!P->isIntegerType() || P->isBooleanType())
      return false;
    Found.push_back(CE->getArg(0)->IgnoreImpCasts());
  }
  Out.append(Found.begin(), Found.end());
  return true;
}

} // namespace

const Expr *tensorIntegerIndexStep(const Expr *E, llvm::SmallVectorImpl<const Expr *> &Indices) {
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E)) {
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (Op->getOperator() != OO_Subscript || Op->getNumArgs() != 2 || !MD ||
        MD->getNumParams() != 1 || !isDerivedFromOrSame(MD->getParent(), names::Tensor))
      return nullptr;
    QualType P = MD->getParamDecl(0)->getType();
    if (!P->isIntegerType() || P->isBooleanType())
      return nullptr;
    Indices.push_back(Op->getArg(1)->IgnoreImpCasts());
    return Op->getArg(0);
  }
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  if (!MC || tensorMethodName(MC) != "index" || MC->getNumArgs() != 1 ||
      !integerIndexList(MC->getArg(0), Indices))
    return nullptr;
  return MC->getImplicitObjectArgument();
}

const Expr *tensorIndexPutScalar(const CXXMemberCallExpr *Call,
                                 llvm::SmallVectorImpl<const Expr *> &Indices) {
  if (!Call || tensorMethodName(Call) != "index_put_" || Call->getNumArgs() != 2)
    return nullptr;
  const CXXRecordDecl *Value = classOf(Call->getMethodDecl()->getParamDecl(1)->getType());
  if (!Value || !isNamed(Value, names::ScalarClass))
    return nullptr;
  llvm::SmallVector<const Expr *, 4> Found;
  if (!integerIndexList(Call->getArg(0), Found))
    return nullptr;
  Indices.append(Found.begin(), Found.end());
  return scalarConversionSource(Call->getArg(1));
}

const Expr *scalarConversionSource(const Expr *E) {
  const Expr *S = skipImplicitTemporaries(E);
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(S))
    S = skipImplicitTemporaries(FC->getSubExpr());
  const auto *CE = dyn_cast<CXXConstructExpr>(S);
  if (CE && CE->getNumArgs() == 1 && isNamed(CE->getConstructor()->getParent(), names::ScalarClass))
    return CE->getArg(0)->IgnoreImpCasts();
  return E;
}

} // namespace clang::tidy::torch_check
