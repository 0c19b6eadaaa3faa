//===--- HostTensorThenDeviceCheck.cpp - libtorch-tidy --------------------===//
//
// collect: the member calls `.to(device)` and `.cuda()` of a function whose
// object is, through parentheses and implicit nodes only (and at most one
// dtype conversion `.to(dtype)` on the host), the call of one of LibTorch's
// sized factories (torch::zeros, at::randn, ...; TorchNames.h);
// decide: `.to`'s first argument names a Device or DeviceType (through the
// implicit conversion to TensorOptions), not a literal CPU, and the factory's
// options give no device (none given, or a dtype, layout or requires_grad
// only: an options variable may hold a device and is left alone);
// diagnose: the factory call, and as a fix-it the device moved into the
// factory's arguments when the options are the default `{}`, the `.to` has no
// other argument, no dtype conversion is between and the device expression has
// no side effects.
//
//===----------------------------------------------------------------------===//

#include "HostTensorThenDeviceCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/Callees.h"
#include "utils/ClangTidyCompat.h"
#include "utils/FunctionFacts.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include <optional>

namespace clang::tidy::torch_check {

namespace {

/// The bound of the loops below over chains of implicit nodes and option
/// setters; a longer chain is left alone.
constexpr unsigned MaxChain = 32;

/// What a factory's options argument says of the device.
enum class OptionsDevice { None, Some, Unknown };

/// The options setters and starters that leave the device alone.
bool setsNeitherDeviceNorPinning(llvm::StringRef Name) {
  return Name == "dtype" || Name == "layout" || Name == "requires_grad" || Name == "memory_format";
}

/// Whether the options expression \p E gives a device: `torch::kDouble`,
/// `TensorOptions().dtype(...)`, `torch::dtype(...).requires_grad(true)` give
/// none; `.device(...)`, `torch::kCUDA` give one; a variable, a call of the
/// user's, pinned memory (a staging buffer) are unknown.
OptionsDevice optionsDevice(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < MaxChain; ++Depth) {
    E = skipImplicitTemporaries(E);
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(E)) { // `= {}`, `= at::kLong`
      E = Default->getExpr();
      continue;
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
      continue;
    }
    if (isScalarTypeType(E->getType()))
      return OptionsDevice::None;
    if (isDeviceOrDeviceTypeType(E->getType()))
      return OptionsDevice::Some;
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (!isTensorOptionsType(CE->getType()))
        return OptionsDevice::Unknown;
      if (CE->getNumArgs() == 0)
        return OptionsDevice::None;
      E = CE->getArg(0);
      continue;
    }
    if (const auto *IL = dyn_cast<InitListExpr>(E))
      return IL->getNumInits() == 0 ? OptionsDevice::None : OptionsDevice::Unknown;
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    if (!FD || !FD->getIdentifier() || !isInLibraryNamespace(FD) ||
        !isTensorOptionsType(FD->getReturnType()))
      return OptionsDevice::Unknown;
    if (FD->getName() == "device" || FD->getName() == "device_index")
      return OptionsDevice::Some;
    if (!setsNeitherDeviceNorPinning(FD->getName()))
      return OptionsDevice::Unknown;
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
    if (!MC)
      return OptionsDevice::None; // torch::dtype(...), torch::requires_grad()
    E = MC->getImplicitObjectArgument();
  }
  return OptionsDevice::Unknown;
}

/// An expression whose evaluation has no side effects and may move: a name
/// (variable, parameter, constant), a member, a literal, or a construction
/// (`torch::Device(torch::kCUDA, rank)`) of such.
bool isSimpleDeviceExpr(const Expr *Root) {
  llvm::SmallVector<const Expr *, 8> Work{Root};
  unsigned Seen = 0;
  while (!Work.empty()) {
    if (++Seen > MaxChain)
      return false;
    const Expr *E = skipImplicitTemporaries(Work.pop_back_val());
    if (isa<DeclRefExpr, IntegerLiteral, StringLiteral, CXXBoolLiteralExpr, CXXThisExpr,
            CXXDefaultArgExpr>(E))
      continue;
    if (const auto *ME = dyn_cast<MemberExpr>(E)) {
      if (!isa<FieldDecl>(ME->getMemberDecl()))
        return false;
      Work.push_back(ME->getBase());
      continue;
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      Work.push_back(FC->getSubExpr());
      continue;
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (!isDeviceOrDeviceTypeType(CE->getType()))
        return false;
      for (const Expr *Arg : CE->arguments())
        Work.push_back(Arg);
      continue;
    }
    return false;
  }
  return true;
}

/// The options argument \p Arg is the default `{}` (not randint's `at::kLong`).
bool isEmptyDefaultOptions(const Expr *Arg) {
  const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg);
  if (!Default)
    return false;
  const Expr *E = skipImplicitTemporaries(Default->getExpr());
  if (const auto *IL = dyn_cast<InitListExpr>(E))
    return IL->getNumInits() == 0;
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  return CE && CE->getNumArgs() == 0;
}

/// The tensor that \p E converts with `t.to(dtype)` (a dtype and only default
/// arguments after it: `torch::ones(1).to(torch::kBool)`), or null.
const Expr *dtypeConversionSource(const Expr *E) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(skipImplicitTemporaries(E));
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != "to" || MC->getNumArgs() < 1 ||
      MD->getNumParams() < 1 || !isScalarTypeType(MD->getParamDecl(0)->getType()) ||
      !isTensorType(MC->getImplicitObjectArgument()->getType()))
    return nullptr;
  for (unsigned I = 1; I < MC->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(MC->getArg(I)))
      return nullptr;
  return MC->getImplicitObjectArgument();
}

/// \p E as a call of a sized factory whose options give no device, with in
/// \p OptionsParam the index of its TensorOptions parameter; null otherwise.
const CallExpr *hostFactory(const Expr *E, unsigned &OptionsParam) {
  const auto *Factory = dyn_cast_or_null<CallExpr>(skipImplicitTemporaries(E));
  std::optional<unsigned> Options = sizedFactoryOptionsParam(Factory);
  if (!Options || *Options >= Factory->getNumArgs() ||
      optionsDevice(Factory->getArg(*Options)) != OptionsDevice::None)
    return nullptr;
  OptionsParam = *Options;
  return Factory;
}

/// The move a user function makes of its parameter, when its whole body is
/// `return p.to(device);` (a one-line `ToDevice` helper) with a device that
/// is not the CPU: the move, and in \p Param the parameter's index. Null for
/// any other callee.
const CXXMemberCallExpr *wrapperMove(const CallExpr *Call, const ASTContext &Ctx, unsigned &Param) {
  const FunctionDecl *Def = followableCallee(Call, Ctx);
  const auto *Body = Def ? dyn_cast_or_null<CompoundStmt>(Def->getBody()) : nullptr;
  if (!Body || Body->size() != 1)
    return nullptr;
  const auto *Ret = dyn_cast<ReturnStmt>(Body->body_front());
  const auto *MC = Ret && Ret->getRetValue()
                       ? dyn_cast<CXXMemberCallExpr>(skipImplicitTemporaries(Ret->getRetValue()))
                       : nullptr;
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || !MD->getIdentifier() || MD->getName() != "to" || MC->getNumArgs() < 1 ||
      !isTensorType(MC->getImplicitObjectArgument()->getType()))
    return nullptr;
  const Expr *Device = toArgumentDevice(MC->getArg(0));
  const auto *DRE = dyn_cast<DeclRefExpr>(skipImplicitTemporaries(MC->getImplicitObjectArgument()));
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!Device || isCPUDeviceExpr(Device) || !P)
    return nullptr;
  Param = P->getFunctionScopeIndex();
  return MC;
}

} // namespace

/// A factory call moved to a device at once.
struct HostTensorThenDeviceCheck::Move {
  const CXXMemberCallExpr *Call = nullptr; ///< `.to(...)` or `.cuda()`
  const CallExpr *Factory = nullptr;       ///< torch::zeros(...)
  const Expr *Device = nullptr;            ///< the device as written; null for cuda()
  unsigned OptionsParam = 0;               ///< the factory's TensorOptions parameter
  bool Fixable = false;                    ///< the device can move into the factory's call
};

void HostTensorThenDeviceCheck::onStartOfTranslationUnit() {
  CoreCheck::onStartOfTranslationUnit();
  Reported.clear();
}

void HostTensorThenDeviceCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body,
                                              ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  // A factory handed to a helper that only moves it (`ToDevice(torch::zeros(n), device)`).
  for (const auto &[Call, Callee] : Facts.userFunctionCalls()) {
    unsigned Param = 0;
    const CXXMemberCallExpr *Inner = wrapperMove(Call, Ctx, Param);
    Move M;
    M.Factory = Inner ? hostFactory(argumentFor(Call, Param), M.OptionsParam) : nullptr;
    if (!M.Factory || !Reported.insert(M.Factory->getExprLoc()).second)
      continue;
    M.Call = Inner;
    M.Device = toArgumentDevice(Inner->getArg(0));
    diagnose(M, Ctx);
    diag(Call->getExprLoc(), "'%0' moves it to the device", DiagnosticIDs::Note)
        << Callee->getNameAsString();
  }
  if (!Facts.callsNamed([](llvm::StringRef N) { return N == "to" || N == "cuda"; }))
    return;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
    const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
    if (!MD || !MD->getIdentifier() || !isTensorType(MC->getImplicitObjectArgument()->getType()))
      return;
    Move M;
    M.Call = MC;
    bool ExtraArgs = false;
    if (MD->getName() == "to" && MC->getNumArgs() >= 1) {
      M.Device = toArgumentDevice(MC->getArg(0));
      if (!M.Device || isCPUDeviceExpr(M.Device))
        return;
      for (unsigned I = 1; I < MC->getNumArgs(); ++I)
        ExtraArgs |= !isa<CXXDefaultArgExpr>(MC->getArg(I));
    } else if (MD->getName() != "cuda" || MC->getNumArgs() != 0) {
      return;
    }
    // Through one dtype conversion on the host (`torch::ones(1).to(torch::kBool).to(device)`):
    // the same allocation and copy, and no fix-it (the dtype would move too).
    const Expr *Moved = MC->getImplicitObjectArgument();
    const Expr *Converted = dtypeConversionSource(Moved);
    M.Factory = hostFactory(Converted ? Converted : Moved, M.OptionsParam);
    if (!M.Factory)
      return;
    bool WrittenUpToOptions = true;
    for (unsigned I = 0; I < M.OptionsParam; ++I)
      WrittenUpToOptions &= !isa<CXXDefaultArgExpr>(M.Factory->getArg(I));
    M.Fixable = !Converted && !ExtraArgs && WrittenUpToOptions &&
                isEmptyDefaultOptions(M.Factory->getArg(M.OptionsParam)) &&
                (!M.Device || isSimpleDeviceExpr(M.Device));
    if (Reported.insert(MC->getExprLoc()).second)
      diagnose(M, Ctx);
  });
}

void HostTensorThenDeviceCheck::diagnose(const Move &M, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = getLangOpts();
  auto D = diag(compat::beginLoc(M.Factory),
                "tensor created on the CPU and then copied to the device: an extra host allocation "
                "and a host-to-device copy each time; create it on the device (pass the device in "
                "the factory's options)")
           << M.Factory->getSourceRange();
  if (!M.Fixable || M.Call->getBeginLoc().isMacroID() || M.Call->getEndLoc().isMacroID() ||
      !M.Factory->getRParenLoc().isFileID())
    return;
  std::string Device;
  if (M.Device) {
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(M.Device->getSourceRange()), SM, LO);
    if (Range.isInvalid())
      return;
    Device = Lexer::getSourceText(Range, SM, LO).str();
  } else {
    const auto *NS = dyn_cast<NamedDecl>(M.Factory->getDirectCallee()->getDeclContext());
    Device = isNamed(NS, names::AtNamespace) ? "at::kCUDA" : "torch::kCUDA";
  }
  SourceLocation MoveBegin =
      Lexer::getLocForEndOfToken(M.Call->getImplicitObjectArgument()->getEndLoc(), 0, SM, LO);
  SourceLocation MoveEnd = Lexer::getLocForEndOfToken(M.Call->getEndLoc(), 0, SM, LO);
  if (Device.empty() || MoveBegin.isInvalid() || MoveEnd.isInvalid())
    return;
  CharSourceRange Move = Lexer::makeFileCharRange(CharSourceRange::getCharRange(MoveBegin, MoveEnd), SM, LO);
  if (Move.isInvalid())
    return;
  D << FixItHint::CreateInsertion(M.Factory->getRParenLoc(), (M.OptionsParam ? ", " : "") + Device)
    << FixItHint::CreateRemoval(Move);
}

} // namespace clang::tidy::torch_check
