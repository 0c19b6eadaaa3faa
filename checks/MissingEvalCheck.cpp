//===--- MissingEvalCheck.cpp - libtorch-tidy -----------------------------===//
//
// collect: per function, the forward passes, the eval()/train(false) and
// train() calls, backward passes (the analysis core's facts), and, for a
// forward pass that may be reported, the user calls that take the module;
// decide: a forward pass in evaluation code (a function whose name says it
// evaluates, as in torch-eval-without-no-grad, or a forward under a grad
// guard) of a torch::nn module whose class holds a dropout or batch-norm layer
// (directly or in a submodule) or reads is_training(), in a function that does
// not train, with no eval()/train(false) on that module before it on every
// path of the function (an unconditional statement of an enclosing block) and
// no helper taking the module before it; for a parameter, callers that switch
// a module to evaluation mode silence it (and so does having no caller in the
// translation unit); for a member, any eval() of that member in the translation
// unit does;
// diagnose: the forward pass, a note at the layer; `module->eval();` before the
// function's top-level statement that holds the forward pass, only for a module
// declared in the function (switching a caller's module would change its
// training).
//
//===----------------------------------------------------------------------===//

#include "MissingEvalCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/CallFacts.h"
#include "utils/ClangTidyCompat.h"
#include "utils/GradGuards.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/NameParts.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

// The same default as torch-eval-without-no-grad's EvalFunctionPattern.
static constexpr llvm::StringLiteral DefaultEvalFunctionPattern =
    "^(eval|evaluate|evaluation|valid|validate|validation|test|testing|infer|inference|"
    "predict|prediction)$";

namespace {

struct Facts {
  llvm::SmallVector<const CallExpr *, 4> Forwards;
  llvm::SmallVector<const CallExpr *, 4> Evals;
  bool Trains = false; ///< backward, autograd::grad or an optimizer step
  llvm::SmallVector<const CallExpr *, 2> TrainCalls;
  llvm::SmallVector<const CallExpr *, 8> UserCalls;
};

/// A call of the user's code (not LibTorch's, not a system header's) that is
/// no forward pass, backward pass or mode switch: a helper that may take the
/// module.
bool isUserCall(const CallExpr *Call, const ASTContext &Ctx) {
  if (isForwardCall(Call) || isBackwardOrGradCall(Call) ||
      moduleModeSwitch(Call, Ctx) != ModeSwitch::None)
    return false;
  const FunctionDecl *Callee = Call->getDirectCallee();
  return Callee && !Ctx.getSourceManager().isInSystemHeader(Callee->getLocation()) &&
         !isInLibraryNamespace(Callee);
}

/// The torch::nn::Module class behind \p T: the class itself, the Impl of a
/// TORCH_MODULE holder (ModuleHolder<Impl>), or the pointee of a shared_ptr.
const CXXRecordDecl *moduleImpl(QualType T) {
  const CXXRecordDecl *RD = classOf(T, /*LookThroughPointers=*/true);
  if (!RD || !RD->hasDefinition())
    return nullptr;
  if (isModuleClass(RD))
    return RD;
  auto TemplateArg = [](const CXXRecordDecl *C) -> const CXXRecordDecl * {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(C);
    if (!Spec || Spec->getTemplateArgs().size() == 0 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return nullptr;
    return classOf(Spec->getTemplateArgs()[0].getAsType());
  };
  if (RD->isInStdNamespace() && RD->getName() == "shared_ptr") {
    const CXXRecordDecl *Inner = TemplateArg(RD);
    return Inner && isModuleClass(Inner) ? Inner : nullptr;
  }
  if (isModuleHolderClass(RD)) {
    const CXXRecordDecl *Holder = RD;
    while (Holder && !isNamed(Holder, names::ModuleHolder)) {
      const CXXRecordDecl *Next = nullptr;
      for (const CXXBaseSpecifier &B : Holder->bases())
        if (const CXXRecordDecl *BR = classOf(B.getType()); BR && isModuleHolderClass(BR))
          Next = BR;
      Holder = Next;
    }
    const CXXRecordDecl *Impl = Holder ? TemplateArg(Holder) : nullptr;
    return Impl && isModuleClass(Impl) && Impl->hasDefinition() ? Impl : nullptr;
  }
  return nullptr;
}

/// LibTorch's layers whose forward depends on the training mode.
bool isModeDependentLayer(const CXXRecordDecl *Impl) {
  if (!isInLibraryNamespace(Impl) || !Impl->getIdentifier())
    return false;
  llvm::StringRef N = Impl->getName();
  N.consume_back("Impl");
  return llvm::is_contained({"Dropout", "Dropout2d", "Dropout3d", "AlphaDropout",
                             "FeatureAlphaDropout", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"},
                            N);
}

/// True when a member function of \p RD defined in the translation unit reads
/// is_training() (a functional dropout or batch norm driven by the mode): asked
/// of each method's facts (\p CallsNamed).
bool readsTrainingMode(const CXXRecordDecl *RD,
                       llvm::function_ref<bool(const FunctionDecl *, llvm::StringRef)> CallsNamed) {
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (MD->hasBody(Def) && Def && CallsNamed(Def, "is_training"))
      return true;
  }
  return false;
}

/// The mode-dependent layer in \p Impl (a field, a field's submodule, or
/// \p Impl itself when it reads is_training()); null when there is none. At
/// most \p Depth classes down, each class once (\p Seen).
const CXXRecordDecl *
modeDependentPart(const CXXRecordDecl *Impl, unsigned Depth,
                  llvm::SmallPtrSetImpl<const CXXRecordDecl *> &Seen,
                  llvm::function_ref<bool(const FunctionDecl *, llvm::StringRef)> CallsNamed) {
  if (!Impl || Depth == 0 || !Seen.insert(Impl).second)
    return nullptr;
  if (isModeDependentLayer(Impl))
    return Impl;
  if (isInLibraryNamespace(Impl))
    return nullptr; // Sequential, ModuleList, Linear ...: contents unknown or mode-free
  if (readsTrainingMode(Impl, CallsNamed))
    return Impl;
  for (const FieldDecl *Field : Impl->fields())
    if (const CXXRecordDecl *Sub = moduleImpl(Field->getType()))
      if (const CXXRecordDecl *Found = modeDependentPart(Sub, Depth - 1, Seen, CallsNamed))
        return Found;
  for (const CXXBaseSpecifier &B : Impl->bases())
    if (const CXXRecordDecl *Base = classOf(B.getType()); Base && isModuleClass(Base))
      if (const CXXRecordDecl *Found = modeDependentPart(Base, Depth - 1, Seen, CallsNamed))
        return Found;
  return nullptr;
}

/// The statement of \p Block that holds \p S.
const Stmt *childOfBlockHolding(const Stmt *S, const Stmt *Block, const ParentMap &PM) {
  const Stmt *Cur = S;
  while (Cur) {
    const Stmt *P = PM.getParent(Cur);
    if (P == Block)
      return Cur;
    Cur = P;
  }
  return nullptr;
}

/// True when \p Eval is an unconditional statement of a block that encloses
/// \p Forward, before the statement that holds it.
bool precedesOnEveryPath(const CallExpr *Eval, const CallExpr *Forward, const ParentMap &PM) {
  const Stmt *EvalStmt = asBlockStatement(Eval, PM);
  const auto *Block = EvalStmt ? dyn_cast_or_null<CompoundStmt>(PM.getParent(EvalStmt)) : nullptr;
  if (!Block)
    return false;
  const Stmt *Holder = childOfBlockHolding(Forward, Block, PM);
  if (!Holder)
    return false;
  for (const Stmt *Child : Block->body()) {
    if (Child == Holder)
      return false;
    if (Child == EvalStmt)
      return true;
  }
  return false;
}

bool mentions(const Stmt *Root, const ValueDecl *V) {
  return anyStmt(Root, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V)
      return true;
    const auto *ME = dyn_cast<MemberExpr>(S);
    return ME && ME->getMemberDecl() == V;
  });
}

} // namespace

MissingEvalCheck::MissingEvalCheck(StringRef Name, ClangTidyContext *Context,
                                   std::shared_ptr<AnalysisCore> Core)
    : CoreCheck(Name, Context, std::move(Core)),
      EvalFunctionPattern(Options.get("EvalFunctionPattern", DefaultEvalFunctionPattern)),
      EvalNames(EvalFunctionPattern),
      CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {
  std::string Error;
  if (!EvalNames.isValid(Error))
    configurationDiag("invalid regular expression in option EvalFunctionPattern '%0': %1")
        << EvalFunctionPattern << Error;
}

void MissingEvalCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "EvalFunctionPattern", EvalFunctionPattern);
  Options.store(Opts, CallDepthOption, CallDepth);
}

void MissingEvalCheck::checkFunction(const FunctionDecl *FD, const Stmt *FunctionBody,
                                         ASTContext &Ctx) {
  const auto *Body = dyn_cast<CompoundStmt>(FunctionBody);
  if (!Body)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  Unit = &Ctx;
  // The forward passes, eval()/train(false) calls and training of the body
  // are the core's facts (one walk per function, shared with other checks).
  const FunctionFacts &Shared = core().facts(FD, Ctx);
  if (!Shared.has(Fact::Forward) && !Shared.has(Fact::Eval))
    return;
  Facts F;
  for (const Fact &Fa : Shared.all()) {
    if (Fa.K == Fact::Forward)
      F.Forwards.push_back(cast<CallExpr>(Fa.S));
    else if (Fa.K == Fact::Eval)
      F.Evals.push_back(cast<CallExpr>(Fa.S));
    else if (Fa.K == Fact::Backward || Fa.K == Fact::Grad || Fa.K == Fact::Step)
      F.Trains = true;
    else if (Fa.K == Fact::Train)
      F.TrainCalls.push_back(cast<CallExpr>(Fa.S));
  }
  // The user calls that may take the module (a helper may switch its mode):
  // gathered from the facts' calls only for a forward pass that may be
  // reported.
  bool UserCallsCollected = false;
  auto UserCalls = [&]() -> llvm::ArrayRef<const CallExpr *> {
    if (!UserCallsCollected) {
      for (const CallSite &Site : Shared.calls())
        if (const auto *Call = dyn_cast<CallExpr>(Site.E); Call && isUserCall(Call, Ctx))
          F.UserCalls.push_back(Call);
      UserCallsCollected = true;
    }
    return F.UserCalls;
  };
  for (const CallExpr *Eval : F.Evals) {
    EvalCallers.insert(FD->getCanonicalDecl());
    const auto *MC = dyn_cast<CXXMemberCallExpr>(Eval);
    if (const ValueDecl *V = MC ? storageOf(MC->getImplicitObjectArgument()) : nullptr;
        V && isa<FieldDecl>(V))
      EvaluatedMembers.insert(V);
  }
  if (F.Forwards.empty() || F.Trains)
    return;

  const IdentifierInfo *II = FD->getIdentifier();
  const bool ByName = II && FD->getLocation().isFileID() && EvalNames.matchesWordOf(II->getName());
  // A train() call makes the function training code, except in a function
  // whose name says it evaluates and that never backpropagates: there, a
  // train() of the module before its guarded forward pass is the mistake
  // (the forward passes of other modules stay silent).
  if (!F.TrainCalls.empty() && !ByName)
    return;
  const ParentMap &PM = Shared.parents();
  llvm::SmallPtrSet<const ValueDecl *, 4> Reported;

  for (const CallExpr *Forward : F.Forwards) {
    if (!ByName && !Shared.isGuarded(Forward))
      continue;
    const Expr *ObjExpr = forwardCallObject(Forward);
    const ValueDecl *Object = ObjExpr ? storageOf(ObjExpr) : nullptr;
    if (!Object || Reported.contains(Object))
      continue;
    // The layer behind a module type, once per type and translation unit
    // (it walks the methods of the module's classes).
    auto [It, New] = LayerOfType.try_emplace(
        Object->getType().getCanonicalType().getAsOpaquePtr(), nullptr);
    if (New) {
      llvm::SmallPtrSet<const CXXRecordDecl *, 8> Seen;
      It->second = modeDependentPart(moduleImpl(Object->getType()), 4, Seen,
                                     [&](const FunctionDecl *Method, llvm::StringRef Name) {
                                       return core().facts(Method, Ctx).callsNamed(Name);
                                     });
    }
    const CXXRecordDecl *Layer = It->second;
    if (!Layer)
      continue;
    const CallExpr *SwitchedToTraining = nullptr;
    if (!F.TrainCalls.empty()) {
      if (!Shared.isGuarded(Forward))
        continue;
      for (const CallExpr *Train : F.TrainCalls) {
        const auto *MC = dyn_cast<CXXMemberCallExpr>(Train);
        if (!MC || storageOf(MC->getImplicitObjectArgument()) != Object)
          continue;
        // Any train(...) of another kind (train(flag)) or not on every path
        // to the forward pass: unknown mode, silent.
        const Expr *Arg = Train->getNumArgs() ? Train->getArg(0) : nullptr;
        if ((Arg && !isa<CXXDefaultArgExpr>(Arg) && knownBool(Arg, Ctx) != true) ||
            !precedesOnEveryPath(Train, Forward, PM)) {
          SwitchedToTraining = nullptr;
          break;
        }
        SwitchedToTraining = Train;
      }
      if (!SwitchedToTraining)
        continue;
    }
    // eval()/train(false) before it on every path, or a helper that gets the
    // module first (it may switch the mode).
    // An alias of the module counts: a reference to it, or a copy of its
    // holder (`Net alias = net;` shares the module).
    auto SameModule = [&](const ValueDecl *V) {
      if (V == Object)
        return true;
      const auto *Var = dyn_cast_or_null<VarDecl>(V);
      return Var && Var->getInit() && mentions(Var->getInit(), Object);
    };
    llvm::SmallVector<const Stmt *, 4> ModuleEvals;
    for (const CallExpr *Eval : F.Evals)
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Eval);
          MC && SameModule(storageOf(MC->getImplicitObjectArgument())))
        ModuleEvals.push_back(Eval);
    if (llvm::any_of(ModuleEvals,
                     [&](const Stmt *Eval) {
                       return precedesOnEveryPath(cast<CallExpr>(Eval), Forward, PM);
                     }) ||
        // From the CFG (built only here): every path to the forward pass
        // switches the module first (an eval() on both branches of an if).
        (!ModuleEvals.empty() && Shared.order().isPlaced(Forward) &&
         !Shared.order().reachableAvoiding(Forward, ModuleEvals)))
      continue;
    // (After a train() on every path, only the helpers between it and the
    // forward pass: the module was built or loaded before it.)
    if (llvm::any_of(UserCalls(), [&](const CallExpr *Call) {
          return Call != Forward &&
                 expandedBefore(Call->getBeginLoc(), Forward->getBeginLoc(), SM) &&
                 (!SwitchedToTraining ||
                  expandedBefore(SwitchedToTraining->getEndLoc(), Call->getBeginLoc(), SM)) &&
                 mentions(Call, Object);
        }))
      continue;
    Reported.insert(Object);
    Finding Fi{Forward, FD, Object, Layer, SourceLocation(), "", ByName, SwitchedToTraining};
    // The fix-it: only for a module declared in this function, before the
    // top-level statement that holds the forward pass (after the declaration).
    const auto *Local = dyn_cast<VarDecl>(Object);
    if (Local && Local->isLocalVarDecl() && !Local->isStaticLocal()) {
      const Stmt *Top = childOfBlockHolding(Forward, Body, PM);
      SourceLocation Loc = Top ? compat::beginLoc(Top) : SourceLocation();
      if (Loc.isValid() && Loc.isFileID() && expandedBefore(Local->getEndLoc(), Loc, SM)) {
        const CXXRecordDecl *Class = classOf(Local->getType());
        bool Arrow = Local->getType()->isPointerType() || (Class && isModuleHolderClass(Class)) ||
                     (Class && Class->isInStdNamespace() && Class->getName() == "shared_ptr");
        Fi.FixLoc = Loc;
        Fi.FixText = (Local->getName() + (Arrow ? "->eval();\n" : ".eval();\n")).str() +
                     indentationAt(Loc, SM);
      }
    }
    Findings.push_back(std::move(Fi));
  }
}

void MissingEvalCheck::reportAtEndOfUnit() {
  for (const Finding &F : Findings) {
    if (isa<FieldDecl>(F.Object) && EvaluatedMembers.contains(F.Object))
      continue;
    if (isa<ParmVarDecl>(F.Object) || isa<FieldDecl>(F.Object)) {
      // The caller may switch the module to evaluation mode: silent unless
      // the function has callers here and none of them (nor theirs) calls eval().
      // The core's call graph (built on the first such question).
      const CallGraph &Graph = core().calls(*Unit);
      auto Callers = Graph.callers(F.Function);
      if (Callers.empty())
        continue;
      bool CallerEvals = llvm::any_of(Callers, [&](const CallGraph::Site *S) {
        if (EvalCallers.contains(S->Caller))
          return true;
        return llvm::any_of(Graph.callers(S->Caller), [&](const CallGraph::Site *Up) {
          return EvalCallers.contains(Up->Caller);
        });
      });
      if (CallerEvals)
        continue;
    }
    {
      auto D = diag(compat::beginLoc(F.Forward),
                    "forward pass in evaluation code of '%0' runs in training mode: its "
                    "dropout and batch-norm layers drop activations and update running "
                    "statistics; switch it to evaluation mode with 'eval()' first")
               << F.Object->getName() << F.Forward->getSourceRange();
      if (F.FixLoc.isValid())
        D << FixItHint::CreateInsertion(F.FixLoc, F.FixText);
    }
    diag(F.Layer->getLocation(), "'%0' behaves differently in training mode",
         DiagnosticIDs::Note)
        << F.Layer->getName();
    if (F.SwitchedToTraining)
      diag(compat::beginLoc(F.SwitchedToTraining),
           "'%0' is switched to training mode here, and the function never backpropagates",
           DiagnosticIDs::Note)
          << F.Object->getName();
    if (F.ByName)
      diag(F.Function->getLocation(),
           "'%0' is evaluation code by its name (option EvalFunctionPattern)", DiagnosticIDs::Note)
          << F.Function->getName();
    else
      diag(compat::beginLoc(F.Forward), "the forward pass runs with autograd disabled: inference",
           DiagnosticIDs::Note);
  }
  Findings.clear();
  EvalCallers.clear();
  EvaluatedMembers.clear();
  LayerOfType.clear();
  Unit = nullptr;
  // No question to the linked summaries: nothing to write (CoreCheck.h).
}

} // namespace clang::tidy::torch_check
