//===--- CudaStreamNotRestoredCheck.cpp - libtorch-tidy -------------------===//

#include "CudaStreamNotRestoredCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ModeRestore.h"
#include "utils/ThreadBodies.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::torch_check {

namespace {

bool isCurrentStreamGetter(const CallExpr *Call) {
  // `cudaStream_t saved = getCurrentCUDAStream();`: the raw handle, through
  // CUDAStream's conversion operator.
  if (const auto *Conversion = dyn_cast_or_null<CXXMemberCallExpr>(Call);
      Conversion && isa<CXXConversionDecl>(Conversion->getMethodDecl()))
    Call = dyn_cast<CallExpr>(stripCopies(Conversion->getImplicitObjectArgument()));
  return classifyCudaStreamCall(Call) == CudaStreamCall::GetCurrent;
}

/// The saved value a stream argument hands back: \p Arg, or the handle that
/// getStreamFromExternal(handle, device) wraps again (directly or through a
/// variable whose only value it is).
const Expr *savedValueOf(const Expr *Arg, const DefUse &Defs) {
  const Expr *E = stripCopies(Arg);
  if (const VarDecl *VD = DefUse::variableNamed(E); VD && Defs.sources(VD).size() == 1)
    E = stripCopies(Defs.sources(VD).front());
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (classifyCudaStreamCall(Call) == CudaStreamCall::OtherApi && FD->getIdentifier() &&
      FD->getName() == "getStreamFromExternal" && Call->getNumArgs() >= 1)
    return Call->getArg(0);
  return Arg;
}

/// True when the stream \p Getter read may be the one current before
/// \p Enter: some path runs Enter after it (in the order of the code body
/// holding both, a lambda's included). A pair with no order (one in a lambda,
/// one outside it) is taken as read before.
bool readBefore(const CallExpr *Getter, const CallExpr *Enter, const ExecutionOrder &Order) {
  if (!Order.canOrder(Getter, Enter))
    return true;
  return Order.mayRunAfter(Enter, Getter);
}

/// What \p Call does to the current stream, seen from the switch \p Enter:
/// setCurrentCUDAStream(saved), with `saved` read by getCurrentCUDAStream()
/// before Enter, restores a saved state (Unknown); setCurrentCUDAStream of
/// the default stream switches back to it (Leaves); any other stream enters.
ModeCall classifyStreamCall(const CallExpr *Call, const CallExpr *Enter, const FunctionFacts &Facts,
                            DefUseOf CalleeDefs) {
  if (classifyCudaStreamCall(Call) != CudaStreamCall::Set || Call->getNumArgs() != 1)
    return ModeCall::None;
  const Expr *Arg = Call->getArg(0);
  const auto *Value = dyn_cast_or_null<CallExpr>(stripCopies(Arg));
  CudaStreamCall ValueKind = classifyCudaStreamCall(Value);
  if (ValueKind == CudaStreamCall::GetDefault || ValueKind == CudaStreamCall::GetCurrent)
    return ModeCall::Leaves;
  auto IsDefaultGetter = [](const CallExpr *Getter) {
    return classifyCudaStreamCall(Getter) == CudaStreamCall::GetDefault;
  };
  if (!savedStateGetters(Arg, Facts.body(), Facts.defUse(), IsDefaultGetter, CalleeDefs).empty())
    return ModeCall::Leaves;
  for (const CallExpr *Getter :
       savedStateGetters(savedValueOf(Arg, Facts.defUse()), Facts.body(), Facts.defUse(),
                         isCurrentStreamGetter, CalleeDefs))
    if (readBefore(Getter, Enter, Facts.order()))
      return ModeCall::Unknown;
  return ModeCall::Enters;
}

/// The device argument of a stream getter is the current device's: left out
/// or -1.
bool currentDeviceArg(const CallExpr *Call, unsigned DeviceParam) {
  if (Call->getNumArgs() <= DeviceParam)
    return Call->getNumArgs() == DeviceParam;
  const Expr *Device = Call->getArg(DeviceParam);
  if (isa<CXXDefaultArgExpr>(Device))
    return true;
  Expr::EvalResult Result;
  return !Device->isValueDependent() &&
         Device->EvaluateAsInt(Result, Call->getCalleeDecl()->getASTContext()) &&
         Result.Val.getInt() == -1;
}

/// True when the stream \p Arg names is known to be on the current device: a
/// call (or a variable's only value) of getStreamFromPool,
/// getCurrentCUDAStream or getDefaultCUDAStream without a device.
bool onCurrentDevice(const Expr *Arg, const DefUse &Defs) {
  const Expr *E = stripCopies(Arg);
  if (const VarDecl *VD = DefUse::variableNamed(E)) {
    if (isa<ParmVarDecl>(VD) || Defs.sources(VD).size() != 1 || Defs.isModified(VD))
      return false;
    E = stripCopies(Defs.sources(VD).front());
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(E);
  switch (classifyCudaStreamCall(Call)) {
  case CudaStreamCall::FromPool:
    return currentDeviceArg(Call, 1);
  case CudaStreamCall::GetCurrent:
  case CudaStreamCall::GetDefault:
    return currentDeviceArg(Call, 0);
  default:
    return false;
  }
}

/// A statement that may change the current device: a set_device-like call or
/// a declaration of a device guard.
bool mayChangeDevice(const Stmt *S) {
  return anyStmt(S, [](const Stmt *X) {
    if (const auto *Call = dyn_cast<CallExpr>(X)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      llvm::StringRef Name = FD && FD->getIdentifier() ? FD->getName() : "";
      return !FD || Name.contains_insensitive("setdevice") ||
             Name.contains_insensitive("set_device") ||
             Name.contains_insensitive("exchangedevice");
    }
    if (const auto *VD = dyn_cast<DeclStmt>(X))
      return llvm::any_of(VD->decls(), [](const Decl *D) {
        const auto *Var = dyn_cast<VarDecl>(D);
        const CXXRecordDecl *RD = Var ? Var->getType()->getAsCXXRecordDecl() : nullptr;
        return RD && RD->getIdentifier() && RD->getName().ends_with("Guard");
      });
    return false;
  });
}

/// The statement of \p Block declaring the saved stream \p Restore hands
/// back, when the restore is its only use and nothing else is declared with
/// it: the fix removes it with the restore.
const Stmt *savedDeclarationOnlyForRestore(const CallExpr *Restore, const Stmt *Body,
                                           const CompoundStmt *Block) {
  const VarDecl *Saved = DefUse::variableNamed(stripCopies(Restore->getArg(0)));
  if (!Saved || !Saved->isLocalVarDecl() || !Saved->hasInit() ||
      !isCurrentStreamGetter(dyn_cast<CallExpr>(stripCopies(Saved->getInit()))))
    return nullptr;
  unsigned Uses = 0;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == Saved)
      ++Uses;
  });
  if (Uses != 1)
    return nullptr;
  for (const Stmt *S : Block->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S); DS && DS->isSingleDecl() &&
                                                DS->getSingleDecl() == Saved)
      return DS;
  return nullptr;
}

/// True when the translation unit declares c10::cuda::CUDAStreamGuard.
bool declaresStreamGuard(ASTContext &Ctx) {
  llvm::StringRef Name = names::CUDAStreamGuard;
  Name.consume_front("::");
  const DeclContext *DC = Ctx.getTranslationUnitDecl();
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  Name.split(Parts, "::");
  for (size_t I = 0; I < Parts.size(); ++I) {
    auto Found = DC->lookup(&Ctx.Idents.get(Parts[I]));
    if (Found.empty())
      return false;
    if (I + 1 == Parts.size())
      return true;
    DC = dyn_cast<DeclContext>(Found.front());
    if (!DC)
      return false;
  }
  return false;
}

} // namespace

CudaStreamNotRestoredCheck::CudaStreamNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                                                       std::shared_ptr<AnalysisCore> Core)
    : ModeRestoreCheck(Name, Context, std::move(Core)),
      Inserter(Options.getLocalOrGlobal("IncludeStyle", utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void CudaStreamNotRestoredCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  ModeRestoreCheck::storeOptions(Opts);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

void CudaStreamNotRestoredCheck::registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                                                     Preprocessor *) {
  Inserter.registerPreprocessor(PP);
}

void CudaStreamNotRestoredCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body,
                                               ASTContext &Ctx) {
  // main's stream is the program's: nothing runs after it returns.
  if (FD->isMain())
    return;
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed("setCurrentCUDAStream"))
    return;
  auto CalleeDefs = [&](const FunctionDecl *Callee) -> const DefUse & {
    return core().facts(Callee, Ctx).defUse();
  };
  // The switches: every setCurrentCUDAStream of the body and its lambdas.
  llvm::SmallVector<const CallExpr *, 4> Enters, Restores;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    ModeCall K = Call ? classifyStreamCall(Call, Call, Facts, CalleeDefs) : ModeCall::None;
    if (K == ModeCall::Enters)
      Enters.push_back(Call);
    else if (isModeRestore(K))
      Restores.push_back(Call);
  });
  if (Enters.empty())
    return;
  // A RAII helper: its destructor makes the saved stream current again.
  auto AnySet = [](const CallExpr *Call) {
    return classifyCudaStreamCall(Call) == CudaStreamCall::Set ? ModeCall::Unknown
                                                               : ModeCall::None;
  };
  if (destructorSetsMode(FD, AnySet))
    return;
  const ParentMap &PM = Facts.parents();
  const std::string GuardName = freshName("stream_guard", declaredNames(Facts));
  for (const CallExpr *Enter : Enters)
    checkSwitch(FD, Body, Enter, Restores, GuardName, Facts, CalleeDefs, Ctx);
}

} // namespace clang::tidy::torch_check

namespace clang::tidy::torch_check {

void CudaStreamNotRestoredCheck::checkSwitch(const FunctionDecl *FD, const Stmt *Body,
                                             const CallExpr *Enter,
                                             llvm::ArrayRef<const CallExpr *> Restores,
                                             llvm::StringRef GuardName, const FunctionFacts &Facts,
                                             DefUseOf CalleeDefs, ASTContext &Ctx) {
  const ParentMap &PM = Facts.parents();
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *CodeBody = enclosingCodeBody(Enter, PM, Body);
  // The whole life of a thread of its own: its stream dies with it.
  if (const LambdaExpr *L = threadBodyLambda(Enter, PM, /*OwnThreadOnly=*/true);
      L && L->getBody() == CodeBody)
    return;
  // A stream guard already held around the switch makes the stream current
  // again at the end of its scope.
  if (enclosingGuard(Enter, PM, CodeBody, isStreamGuardType))
    return;
  const CFG *Graph = Facts.order().graph(CodeBody);
  if (!Graph)
    return;
  auto Classify = [&](const CallExpr *Call) {
    return classifyStreamCall(Call, Enter, Facts, CalleeDefs);
  };
  auto StreamApi = [](const CallExpr *Call) {
    return classifyCudaStreamCall(Call) != CudaStreamCall::None;
  };
  auto Work = [](const CallExpr *Call) {
    return classifyCudaStreamCall(Call) == CudaStreamCall::None;
  };
  ModePaths Paths = followModePaths(*Graph, Enter, Classify, StreamApi, Work,
                                    knownConditions(Enter, PM, CodeBody, Facts.defUse()));
  const CallExpr *FirstThrowing = firstUnhandledThrow(Paths, CodeBody, PM, Classify, SM);
  const bool InLambda = CodeBody != Body;
  const bool AnyRestore = llvm::any_of(Restores, [&](const CallExpr *R) {
    return enclosingCodeBody(R, PM, Body) == CodeBody && isModeRestore(Classify(R));
  });
  const bool Escapes = !Paths.Escapes.empty() && (AnyRestore || Paths.DidWork);
  const bool Unsafe = !Escapes && CheckExceptionSafety && Paths.Restore && FirstThrowing;
  if (!Escapes && !Unsafe)
    return;

  ModeScope Scope = findModeScope(Enter, PM, Classify);
  std::string WhyNot;
  const Stmt *WhyNotAt = Enter;
  {
    auto D = Escapes ? diag(compat::beginLoc(Enter),
                            "CUDA stream made current here is not switched back on every path "
                            "out of %select{'%1'|the lambda}0: the caller's later kernels run on "
                            "it, unordered with the work queued on the stream it expects")
                     : diag(compat::beginLoc(Enter),
                            "CUDA stream made current here is switched back only when nothing "
                            "throws: an exception leaves it current, and the caller's later "
                            "kernels run on it, unordered with the work queued on the stream it "
                            "expects");
    D << InLambda << FD->getNameAsString() << Enter->getSourceRange();
    for (const FixItHint &Fix :
         guardFixes(Enter, Scope, GuardName, Facts, CalleeDefs, Ctx, WhyNot, WhyNotAt))
      D << Fix;
  }

  if (Escapes) {
    const Stmt *Last = escapeStatement(*Paths.Escapes.front());
    if (isa_and_nonnull<ReturnStmt>(Last))
      diag(compat::beginLoc(Last), "the stream is still current when it returns here",
           DiagnosticIDs::Note);
    else if (isa_and_nonnull<CXXThrowExpr>(Last))
      diag(compat::beginLoc(Last), "the stream is still current when this exception leaves",
           DiagnosticIDs::Note);
    else if (const auto *CS = dyn_cast<CompoundStmt>(CodeBody))
      diag(CS->getRBracLoc(), "the stream is still current at the end", DiagnosticIDs::Note);
  } else {
    diag(compat::beginLoc(FirstThrowing),
         "this call may throw before the previous stream is made current again",
         DiagnosticIDs::Note);
    diag(compat::beginLoc(Paths.Restore), "switched back here", DiagnosticIDs::Note);
  }
  if (!WhyNot.empty())
    diag(compat::beginLoc(WhyNotAt), "no fix-it: %0; hold a '%1' for the scope that needs the "
                                     "stream",
         DiagnosticIDs::Note)
        << WhyNot << names::CUDAStreamGuardSpelling;
}

llvm::SmallVector<FixItHint, 4>
CudaStreamNotRestoredCheck::guardFixes(const CallExpr *Enter, const ModeScope &Scope,
                                       llvm::StringRef GuardName, const FunctionFacts &Facts,
                                       DefUseOf CalleeDefs, ASTContext &Ctx, std::string &WhyNot,
                                       const Stmt *&WhyNotAt) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LangOpts = getLangOpts();
  const ParentMap &PM = Facts.parents();
  llvm::SmallVector<FixItHint, 4> Fixes;
  if (Scope.Result == ModeScope::NoPair) {
    WhyNot = "the previous stream is not made current again later in the same block";
    return Fixes;
  }
  WhyNotAt = Scope.RestoreStmt;
  if (Scope.Result == ModeScope::UsedAfter) {
    WhyNot = "variables declared while the stream is current are used after it is switched "
             "back";
    return Fixes;
  }
  const auto *Restore = cast<CallExpr>(cast<Expr>(Scope.RestoreStmt)->IgnoreImplicit());
  if (classifyStreamCall(Restore, Enter, Facts, CalleeDefs) != ModeCall::Unknown) {
    WhyNot = "it switches to the default stream, not back to the one current before, which "
             "a guard would restore";
    return Fixes;
  }
  // The guard also makes the stream's device current for its scope and
  // switches the device back at its end: the same only when the stream and
  // the saved one are the current device's and nothing in between changes it.
  if (!onCurrentDevice(Enter->getArg(0), Facts.defUse()) ||
      !onCurrentDevice(Restore->getArg(0), Facts.defUse()) ||
      llvm::any_of(Scope.Between, mayChangeDevice)) {
    WhyNotAt = Enter;
    WhyNot = "a guard also makes the stream's device current until the end of its scope, and "
             "this stream is not known to be on the current device, or the device changes "
             "before the stream is switched back";
    return Fixes;
  }
  CharSourceRange EnterRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Enter->getSourceRange()), SM, LangOpts);
  CharSourceRange ArgRange = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Enter->getArg(0)->getSourceRange()), SM, LangOpts);
  if (ArgRange.isInvalid())
    return Fixes;
  std::string GuardDecl = (names::CUDAStreamGuardSpelling + " " + GuardName + "(" +
                           Lexer::getSourceText(ArgRange, SM, LangOpts) + ")")
                              .str();
  Fixes = guardScopeFixes(Scope, EnterRange, GuardDecl, SM, LangOpts);
  if (Fixes.empty())
    return Fixes;
  // The saved stream only served the restore: it goes with it.
  if (const Stmt *Saved = savedDeclarationOnlyForRestore(
          Restore, Facts.body(), cast<CompoundStmt>(PM.getParent(Scope.EnterStmt)))) {
    CharSourceRange Removal = statementRemovalRange(Saved, SM, LangOpts);
    if (Removal.isValid())
      Fixes.push_back(FixItHint::CreateRemoval(Removal));
  }
  FileID File = SM.getFileID(SM.getExpansionLoc(compat::beginLoc(Enter)));
  if (!declaresStreamGuard(Ctx))
    if (auto Include = Inserter.createIncludeInsertion(File, names::CUDAStreamGuardHeader))
      Fixes.push_back(*Include);
  return Fixes;
}

} // namespace clang::tidy::torch_check
