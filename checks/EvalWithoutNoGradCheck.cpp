//===--- EvalWithoutNoGradCheck.cpp - libtorch-tidy -----------------------===//
//
// AOTInductor: `loader.run(inputs)` on a torch::inductor::AOTIModelPackageLoader
// (or an AOTIModelContainerRunner) is not a forward pass for this check. The
// compiled model runs its kernels through the AOTI C shim
// (aoti_torch/generated/c_shim_*.h, generated per backend by torchgen: below
// the Autograd dispatch key), its weights are constants of the package that do
// not require grad, and its outputs are allocated by aoti_torch_empty_strided:
// an unguarded run() records no graph and keeps no activation, so a guard
// would save nothing. The classification of forward passes
// (classifyForwardCall) leaves run() out on purpose (docs page; lit test
// torch-eval-without-no-grad-aoti.cpp).
//
// Option SuggestInferenceMode: where no tensor the function computes can
// reach autograd after it (resultsStayIn: no tensor returned, written to a
// member, a global, a parameter or through a reference or pointer, passed to a
// user function or constructor, captured by a lambda), suggest
// c10::InferenceMode instead of torch::NoGradGuard.
//

#include "EvalWithoutNoGradCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ExecutionOrder.h"
#include "utils/GradGuards.h"
#include "utils/Matchers.h"
#include "utils/NameParts.h"
#include "utils/Summaries.h"
#include "utils/ThreadBodies.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy {
llvm::ArrayRef<std::pair<torch_check::EvalWithoutNoGradCheck::GuardKind, StringRef>>
OptionEnumMapping<torch_check::EvalWithoutNoGradCheck::GuardKind>::getEnumMapping() {
  static constexpr std::pair<torch_check::EvalWithoutNoGradCheck::GuardKind, StringRef>
      Mapping[] = {{torch_check::EvalWithoutNoGradCheck::GuardKind::NoGradGuard, "NoGradGuard"},
                   {torch_check::EvalWithoutNoGradCheck::GuardKind::InferenceMode,
                    "InferenceMode"}};
  return Mapping;
}
} // namespace clang::tidy

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral DefaultEvalFunctionPattern =
    "^(eval|evaluate|evaluation|valid|validate|validation|test|testing|infer|inference|"
    "predict|prediction)$";

namespace {

/// Everything the check needs from one function body, in source order: a
/// view of the analysis core's facts (FunctionFacts).
struct BodyFacts {
  struct Forward {
    const CallExpr *Call;
    const VarDecl *Object; ///< the variable the forward is called on, if any
    const FunctionDecl *Helper = nullptr; ///< a user function that runs the forward
    const CallExpr *Inner = nullptr;      ///< the forward pass inside the helper
    bool Elsewhere = false;               ///< Helper is defined in another file
  };
  llvm::SmallVector<Forward, 8> Forwards;
  llvm::SmallVector<const CallExpr *, 4> Evals;  ///< eval(), train(false)
  llvm::SmallVector<const CallExpr *, 4> Trains; ///< train(), train(true), train(x)
  llvm::SmallVector<const CallExpr *, 4> Backwards;
  llvm::SmallPtrSet<const VarDecl *, 4> TrainedVars;
  /// Calls of the user's functions (not forward passes, backward passes or
  /// mode switches), callee first.
  llvm::SmallVector<std::pair<const FunctionDecl *, const CallExpr *>, 8> UserCalls;
  bool HasLambda = false; ///< a lambda is spelled in the body (a thread body may be one)
};

const VarDecl *referencedVar(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

BodyFacts bodyFacts(const FunctionFacts &Shared) {
  BodyFacts Facts;
  Facts.HasLambda = Shared.spellsLambda();
  llvm::SmallPtrSet<const Stmt *, 8> Classified;
  for (const Fact &F : Shared.all()) {
    const auto *Call = dyn_cast_or_null<CallExpr>(F.S);
    if (!Call)
      continue;
    switch (F.K) {
    case Fact::Forward:
      Facts.Forwards.push_back({Call, referencedVar(forwardCallObject(Call)), nullptr, nullptr});
      break;
    case Fact::Backward:
    case Fact::Grad:
      Facts.Backwards.push_back(Call);
      break;
    case Fact::Eval:
    case Fact::Train:
      (F.K == Fact::Eval ? Facts.Evals : Facts.Trains).push_back(Call);
      // Any train(...) call, train(false) included, marks its module.
      if (moduleMethodName(Call) == "train")
        if (const VarDecl *VD = referencedVar(
                stripHolderArrow(cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument())))
          Facts.TrainedVars.insert(VD);
      break;
    default:
      continue;
    }
    Classified.insert(Call);
  }
  for (const auto &[Call, Callee] : Shared.userFunctionCalls())
    if (!Classified.contains(Call))
      Facts.UserCalls.push_back({Callee, Call});
  return Facts;
}

/// The variables `torch::jit::load` initialises or is assigned to.
class JitLoadCollector : public RecursiveASTVisitor<JitLoadCollector> {
public:
  explicit JitLoadCollector(llvm::DenseMap<const VarDecl *, const CallExpr *> &Loaded)
      : Loaded(Loaded) {}

  bool VisitVarDecl(VarDecl *VD) {
    if (const Expr *Init = VD->getInit())
      if (isJitLoadCall(dyn_cast<CallExpr>(Init->IgnoreImplicit()->IgnoreParens())))
        Loaded[VD] = cast<CallExpr>(Init->IgnoreImplicit()->IgnoreParens());
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    // module = torch::jit::load(...)
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts()))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
          if (const auto *Load = dyn_cast<CallExpr>(Op->getArg(1)->IgnoreImplicit()->IgnoreParens()))
            if (isJitLoadCall(Load))
              Loaded[VD] = Load;
    return true;
  }

private:
  llvm::DenseMap<const VarDecl *, const CallExpr *> &Loaded;
};

/// True when \p D is storage of the function's own: a local variable that is
/// not a parameter, a static, a reference, a pointer or a smart pointer.
bool isOwnStorage(const ValueDecl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  if (!VD || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage())
    return false;
  QualType T = VD->getType();
  if (T->isReferenceType() || T->isPointerType())
    return false;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return !(RD && RD->isInStdNamespace() && RD->getIdentifier() &&
           llvm::is_contained({"shared_ptr", "unique_ptr", "weak_ptr", "reference_wrapper"},
                              RD->getName()));
}

bool tensorish(QualType T) { return !T.isNull() && mayHoldTensor(T.getNonReferenceType()); }

/// A function or class of LibTorch or the standard library (they keep no
/// tensor they are given, but for std::swap / std::exchange).
bool isLibraryDecl(const Decl *D) {
  const DeclContext *DC = D->getDeclContext();
  const NamespaceDecl *Top = nullptr;
  for (; DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Top = NS;
  return Top && (Top->isStdNamespace() || isNamed(Top, names::TorchNamespace) ||
                 isNamed(Top, names::AtNamespace) || isNamed(Top, names::C10Namespace));
}

/// Finds a way for a tensor computed in a body to outlive it (the
/// conservative side of resultsStayIn: anything it cannot follow counts).
class EscapeFinder : public RecursiveASTVisitor<EscapeFinder> {
public:
  bool Escapes = false;
  bool shouldVisitLambdaBodies() const { return false; }
  bool VisitLambdaExpr(LambdaExpr *) { return escape(); } // it may outlive the call
  bool VisitCXXNewExpr(CXXNewExpr *New) { return tensorish(New->getAllocatedType()) ? escape() : true; }
  bool VisitVarDecl(VarDecl *VD) {
    return !VD->hasLocalStorage() && tensorish(VD->getType()) ? escape() : true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    return B->isAssignmentOp() && writesOut(B->getLHS()) ? escape() : true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      return writesOut(Op->getArg(0)) ? escape() : true;
    const FunctionDecl *FD = Op->getDirectCallee();
    return (!FD || !isLibraryDecl(FD)) && passesTensor(Op, 0) ? escape() : true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (!MD || !Obj)
      return escape();
    // Tensor's in-place methods are const members named with a trailing '_'.
    bool Mutates = !MD->isConst() || (MD->getIdentifier() && MD->getName().ends_with("_"));
    QualType ObjType = Obj->getType();
    if (ObjType->isPointerType())
      ObjType = ObjType->getPointeeType();
    if (Mutates && tensorish(ObjType) && !isOwnStorage(storageVariable(Obj)))
      return escape();
    return !isLibraryDecl(MD) && !isForwardCall(MC) && passesTensor(MC, 0) ? escape() : true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (isa<CXXMemberCallExpr, CXXOperatorCallExpr>(Call))
      return true;
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
        llvm::is_contained({"swap", "exchange", "iter_swap"}, FD->getName()))
      return escape();
    return (!FD || !isLibraryDecl(FD)) && passesTensor(Call, 0) ? escape() : true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (!Ctor || isLibraryDecl(Ctor->getParent()))
      return true;
    for (const Expr *Arg : Construct->arguments())
      if (tensorish(Arg->getType()))
        return escape();
    return true;
  }
  bool VisitInitListExpr(InitListExpr *Init) {
    const CXXRecordDecl *RD = Init->getType()->getAsCXXRecordDecl();
    if (!RD || isLibraryDecl(RD))
      return true;
    for (const Expr *E : Init->inits())
      if (E && tensorish(E->getType()))
        return escape();
    return true;
  }

private:
  bool escape() {
    Escapes = true;
    return false; // stops the walk
  }
  /// \p E is written: a tensor outlives the body unless \p E is the
  /// function's own storage (or holds no tensor).
  static bool writesOut(const Expr *E) {
    return tensorish(E->getType()) && !isOwnStorage(storageVariable(E));
  }
  static bool passesTensor(const CallExpr *Call, unsigned From) {
    for (unsigned I = From; I < Call->getNumArgs(); ++I)
      if (tensorish(Call->getArg(I)->getType()))
        return true;
    return false;
  }
};

/// True when no tensor \p FD computes can reach autograd after it returns:
/// it returns no tensor, and nothing in its body lets one outlive it
/// (EscapeFinder).
bool resultsStayIn(const FunctionDecl *FD) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || tensorish(Def->getReturnType()) || Def->isDependentContext())
    return false;
  EscapeFinder Finder;
  Finder.TraverseStmt(Def->getBody());
  return !Finder.Escapes;
}

/// The names of the variables a body declares (its lambdas' included).
class NameCollector : public RecursiveASTVisitor<NameCollector> {
public:
  explicit NameCollector(llvm::SmallVectorImpl<StringRef> &Names) : Names(Names) {}
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->getIdentifier())
      Names.push_back(VD->getName()); // the identifier table's copy
    return true;
  }

private:
  llvm::SmallVectorImpl<StringRef> &Names;
};

} // namespace

EvalWithoutNoGradCheck::EvalWithoutNoGradCheck(StringRef Name, ClangTidyContext *Context,
                                               std::shared_ptr<AnalysisCore> Core)
    : CoreCheck(Name, Context, std::move(Core)),
      EvalFunctionPattern(Options.get("EvalFunctionPattern", DefaultEvalFunctionPattern)),
      Guard(Options.get("GuardType", GuardKind::NoGradGuard)),
      SuggestInferenceMode(boolOption("SuggestInferenceMode", false)),
      EvalNames(EvalFunctionPattern),
      CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {
  std::string Error;
  if (!EvalNames.isValid(Error))
    configurationDiag("invalid regular expression in option EvalFunctionPattern '%0': %1")
        << EvalFunctionPattern << Error;
}

void EvalWithoutNoGradCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "EvalFunctionPattern", EvalFunctionPattern);
  Options.store(Opts, "GuardType", Guard);
  Options.store(Opts, "SuggestInferenceMode", SuggestInferenceMode ? "true" : "false");
  Options.store(Opts, CallDepthOption, CallDepth);
}

const FunctionSummary *EvalWithoutNoGradCheck::externalHelper(const CallExpr *Call,
                                                              const ASTContext &Ctx) const {
  const FunctionDecl *Callee = externalCallee(Call, Ctx);
  return Callee ? core().externalSummary(Callee) : nullptr;
}

bool EvalWithoutNoGradCheck::nameSaysEval(const FunctionDecl *FD) {
  const IdentifierInfo *II = FD->getIdentifier();
  return II && FD->getLocation().isFileID() && EvalNames.matchesWordOf(II->getName());
}

EvalWithoutNoGradCheck::HelperSummary
EvalWithoutNoGradCheck::helperSummary(const FunctionDecl *FD, ASTContext &Ctx, unsigned Budget) {
  // A walk down the calls with an explicit stack of the functions being
  // summarised, not a recursion: one frame per level, at most Budget (each
  // level has one less, and a call is followed only with a budget above 1).
  // Helpers, keyed by function and budget, is the visited set: each pair is
  // summarised once.
  struct Frame {
    std::pair<const FunctionDecl *, unsigned> Key;
    const FunctionFacts *Guards = nullptr;
    BodyFacts Facts;
    HelperSummary S;
    size_t Next = 0; ///< the next of Facts.UserCalls to follow
  };
  llvm::SmallVector<Frame, 4> Stack;
  // The summary of \p Def with \p B when it is known; otherwise a new frame.
  auto Enter = [&](const FunctionDecl *Def, unsigned B) -> std::optional<HelperSummary> {
    auto Key = std::make_pair(Def->getCanonicalDecl(), B);
    if (auto It = Helpers.find(Key); It != Helpers.end())
      return It->second; // a recursive call in progress reads "runs nothing"
    Helpers[Key] = HelperSummary{};
    Frame Fr;
    Fr.Key = Key;
    Fr.S.NameSaysEval = nameSaysEval(Def);
    // The facts, and their memoised guards (isGradDisabledAt).
    Fr.Guards = &core().facts(Def, Ctx);
    Fr.Facts = bodyFacts(*Fr.Guards);
    Fr.S.Trains = !Fr.Facts.Backwards.empty() || !Fr.Facts.Trains.empty();
    if (!Fr.S.Trains && (!Fr.Facts.Forwards.empty() || !Fr.Facts.UserCalls.empty())) {
      for (const auto &Fwd : Fr.Facts.Forwards)
        if (!Fr.Guards->isGuarded(Fwd.Call)) {
          Fr.S.Forward = Fwd.Call;
          break;
        }
    } else {
      Fr.Next = Fr.Facts.UserCalls.size(); // no call to follow
    }
    Stack.push_back(std::move(Fr));
    return std::nullopt;
  };
  if (std::optional<HelperSummary> Known = Enter(FD, Budget))
    return *Known;
  std::optional<HelperSummary> Inner; // of the callee at the top frame's Next call
  for (;;) {
    Frame &Top = Stack.back();
    const unsigned B = Top.Key.second;
    bool Entered = false;
    while (Top.Next < Top.Facts.UserCalls.size()) {
      const CallExpr *Call = Top.Facts.UserCalls[Top.Next].second;
      if (!Inner) {
        if (Top.S.Forward && Top.S.Trains)
          break;
        const FunctionDecl *Def = followableCallee(Call, Ctx);
        if (!Def && B > 1) {
          // Defined in another file: its linked summary, one level deeper.
          if (const FunctionSummary *Ext = externalHelper(Call, Ctx)) {
            if (Ext->trains(B - 2)) {
              Top.S.Trains = true;
              break;
            }
            if (!Top.S.Forward && FunctionSummary::reaches(Ext->UnguardedForward, B - 2) &&
                !Top.Guards->isGuarded(Call))
              Top.S.Forward = Call;
          }
          ++Top.Next;
          continue;
        }
        if (!Def || B <= 1) {
          ++Top.Next;
          continue;
        }
        Inner = Enter(Def, B - 1);
        if (!Inner) {
          Entered = true; // Top waits for the callee's summary (and may have moved)
          break;
        }
      }
      HelperSummary Callee = *Inner;
      Inner.reset();
      if (Callee.Trains) {
        Top.S.Trains = true; // a training step: its graph is wanted
        break;
      }
      if (!Top.S.Forward && Callee.Forward && !Top.Guards->isGuarded(Call))
        Top.S.Forward = Callee.Forward;
      ++Top.Next;
    }
    if (Entered)
      continue;
    if (Top.S.Trains)
      Top.S.Forward = nullptr;
    Helpers[Top.Key] = Top.S;
    HelperSummary Done = Top.S;
    Stack.pop_back();
    if (Stack.empty())
      return Done;
    Inner = Done;
  }
}

EvalWithoutNoGradCheck::GuardKind EvalWithoutNoGradCheck::guardFor(const Finding &F) {
  // A helper's forward pass: what the helper keeps is not followed.
  if (!SuggestInferenceMode || Guard == GuardKind::InferenceMode || F.Helper)
    return Guard;
  auto [It, New] = ResultsStay.try_emplace(F.Function->getCanonicalDecl(), false);
  if (New)
    It->second = resultsStayIn(F.Function);
  return It->second ? GuardKind::InferenceMode : Guard;
}

std::string EvalWithoutNoGradCheck::guardDeclaration(const FunctionDecl *FD, GuardKind Kind) {
  const bool NoGrad = Kind == GuardKind::NoGradGuard;
  std::string Var = NoGrad ? "no_grad" : "guard";
  // The names the function declares, collected for the functions with a
  // finding only.
  auto [It, New] = DeclaredNames.try_emplace(FD);
  if (New)
    if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->getBody())
      NameCollector(It->second).TraverseStmt(Def->getBody());
  while (llvm::is_contained(It->second, Var))
    Var += "_";
  return (NoGrad ? names::NoGradGuardSpelling : names::InferenceModeSpelling).str() + " " + Var +
         ";";
}

void EvalWithoutNoGradCheck::checkFunction(const FunctionDecl *FD, const Stmt *FunctionBody,
                                               ASTContext &Ctx) {
  const auto *Body = dyn_cast<CompoundStmt>(FunctionBody);
  if (!Body)
    return;
  SM = &Ctx.getSourceManager();
  Unit = &Ctx;

  if (core().writesSummaries())
    core().summaries(Ctx);
  // Nothing to judge without a forward pass or a call of the user's code
  // (the core's facts hold the calls the walk below would find).
  const FunctionFacts &Shared = core().facts(FD, Ctx);
  if (!Shared.has(Fact::Forward) && Shared.userFunctionCalls().empty())
    return;

  BodyFacts Facts = bodyFacts(Shared);
  // Every finding needs one of: an eval() call (a), a name that says
  // evaluation (b), a TorchScript load (c), a lambda (a thread body).
  if (Facts.Evals.empty() && !Facts.HasLambda && !nameSaysEval(FD) &&
      !Shared.has(Fact::Load))
    return;

  const FunctionDecl *Canonical = FD->getCanonicalDecl();
  if (Facts.Forwards.empty() && Facts.UserCalls.empty())
    return;

  // Helpers that run a forward pass count as one where they are called; a
  // helper that trains (backward, train()) makes this function training code.
  // A helper whose own name says it evaluates gets its own finding.
  bool AddedHelper = false;
  for (const auto &[Callee, Call] : Facts.UserCalls) {
    const FunctionDecl *Def = followableCallee(Call, Ctx);
    if (!Def) {
      // A helper defined in another file: its linked summary (one level of
      // calls deeper, like a helper defined here).
      const FunctionSummary *Ext = externalHelper(Call, Ctx);
      if (!Ext)
        continue;
      unsigned Within = CallDepth ? CallDepth - 1 : 0;
      const FunctionDecl *Callee = externalCallee(Call, Ctx);
      if (Ext->trains(Within))
        Facts.Backwards.push_back(Call);
      else if (FunctionSummary::reaches(Ext->UnguardedForward, Within) && !nameSaysEval(Callee)) {
        Facts.Forwards.push_back({Call, nullptr, Callee, nullptr, /*Elsewhere=*/true});
        AddedHelper = true;
      }
      continue;
    }
    if (Def->getCanonicalDecl() == Canonical)
      continue;
    HelperSummary S = helperSummary(Def, Ctx, CallDepth);
    if (S.Trains)
      Facts.Backwards.push_back(Call);
    else if (S.Forward && !S.NameSaysEval) {
      Facts.Forwards.push_back({Call, nullptr, Def, S.Forward});
      AddedHelper = true;
    }
  }
  if (Facts.Forwards.empty())
    return;
  if (AddedHelper)
    llvm::stable_sort(Facts.Forwards, [&](const BodyFacts::Forward &A, const BodyFacts::Forward &B) {
      return startsBefore(A.Call, B.Call, *SM);
    });

  const ParentMap &PM = Shared.parents();

  // Grad mode is thread-local: a forward pass in the body of a thread this
  // function starts is judged by the guards of that body alone.
  llvm::SmallPtrSet<const LambdaExpr *, 2> ThreadsReported;
  // (Without a lambda in the body there is no thread body: no walk from each
  // forward pass up to the root, quadratic on a long expression.)
  llvm::erase_if(Facts.Forwards, [&](const BodyFacts::Forward &Fwd) {
    const LambdaExpr *L = Facts.HasLambda ? threadBodyLambda(Fwd.Call, PM) : nullptr;
    if (!L)
      return false;
    const auto *LBody = dyn_cast<CompoundStmt>(L->getBody());
    const VarDecl *SpawnGuard = enclosingGradGuard(L, PM, Ctx);
    bool SpawnEval = SpawnGuard || (nameSaysEval(FD) && Facts.Backwards.empty() && Facts.Trains.empty());
    bool BodyTrains = llvm::any_of(Facts.Backwards, [&](const CallExpr *B) { return isDescendant(B, L, PM); }) ||
                      llvm::any_of(Facts.Trains, [&](const CallExpr *T) { return isDescendant(T, L, PM); });
    if (!LBody || !SpawnEval || BodyTrains || isGradDisabledInThreadBody(Fwd.Call, L, Ctx) ||
        !ThreadsReported.insert(L).second)
      return true;
    {
      auto D = diag(isa<CXXOperatorCallExpr>(Fwd.Call) ? compat::beginLoc(Fwd.Call) : Fwd.Call->getExprLoc(),
                    "forward pass on a thread started by evaluation code runs with autograd enabled: "
                    "grad mode is thread-local, so the spawning thread's guard does not cover it; "
                    "hold a '%0' in the thread body")
               << (Guard == GuardKind::NoGradGuard ? names::NoGradGuardSpelling
                                                   : names::InferenceModeSpelling)
               << Fwd.Call->getSourceRange();
      if (!LBody->body_empty()) {
        SourceLocation Loc = compat::beginLoc(LBody->body_front());
        SourceLocation Brace = LBody->getLBracLoc();
        if (Loc.isValid() && Loc.isFileID() && Brace.isFileID()) {
          std::string Text = guardDeclaration(Canonical, Guard);
          Text += SM->getSpellingLineNumber(Brace) == SM->getSpellingLineNumber(Loc)
                      ? std::string(" ")
                      : "\n" + indentationAt(Loc, *SM);
          D << FixItHint::CreateInsertion(Loc, Text);
        }
      }
    }
    if (SpawnGuard)
      diag(SpawnGuard->getLocation(), "this guard covers only the thread that declares it",
           DiagnosticIDs::Note);
    else
      diag(FD->getLocation(), "'%0' is evaluation code by its name (option EvalFunctionPattern)",
           DiagnosticIDs::Note)
          << FD->getNameAsString();
    diag(compat::beginLoc(L), "the thread body starts here", DiagnosticIDs::Note);
    return true;
  });
  if (Facts.Forwards.empty())
    return;

  auto Before = [&](const Stmt *A, const Stmt *B) {
    return startsBefore(A, B, *SM);
  };
  auto Unguarded = [&](const CallExpr *Call) { return !Shared.isGuarded(Call); };
  llvm::SmallPtrSet<const CallExpr *, 8> Reported;

  auto StartOfBodyFix = [&](Finding &F) {
    const Stmt *First = Body->body_front();
    SourceLocation Loc = compat::beginLoc(First);
    if (!Loc.isValid() || Loc.isMacroID())
      return;
    F.FixLoc = Loc;
    F.InsertAfter = false;
    SourceLocation Brace = Body->getLBracLoc();
    if (Brace.isMacroID() || SM->getSpellingLineNumber(Brace) == SM->getSpellingLineNumber(Loc))
      F.FixIndent = " ";
    else
      F.FixIndent = "\n" + indentationAt(Loc, *SM);
  };

  auto SetHelper = [](Finding &F, const BodyFacts::Forward &Fwd) {
    F.Helper = Fwd.Helper;
    F.HelperElsewhere = Fwd.Elsewhere;
    if (Fwd.Inner)
      F.HelperForward = isa<CXXOperatorCallExpr>(Fwd.Inner) ? compat::beginLoc(Fwd.Inner)
                                                            : Fwd.Inner->getExprLoc();
  };

  auto WarnLoc = [](const CallExpr *Call) {
    return isa<CXXOperatorCallExpr>(Call) ? compat::beginLoc(Call) : Call->getExprLoc();
  };

  // (b) A function whose name says it evaluates (and that neither trains nor
  // runs a backward pass).
  if (Facts.Backwards.empty() && Facts.Trains.empty() && nameSaysEval(FD)) {
    for (const auto &Fwd : Facts.Forwards)
      if (Unguarded(Fwd.Call)) {
        Finding F{FD, WarnLoc(Fwd.Call), Fwd.Call->getSourceRange(), Finding::ByName,
                  FD->getLocation(), FD->getNameAsString(), {}, {}, false, {}};
        SetHelper(F, Fwd);
        StartOfBodyFix(F);
        Findings.push_back(std::move(F));
        break;
      }
    return;
  }

  // (c) A TorchScript module loaded here and never trained here.
  llvm::DenseMap<const VarDecl *, const CallExpr *> JitLoaded;
  if (Facts.Backwards.empty() && Shared.has(Fact::Load))
    JitLoadCollector(JitLoaded).TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (!JitLoaded.empty()) {
    for (const auto &Fwd : Facts.Forwards) {
      if (!Fwd.Object || !Unguarded(Fwd.Call))
        continue;
      auto It = JitLoaded.find(Fwd.Object);
      if (It == JitLoaded.end() || Facts.TrainedVars.contains(Fwd.Object))
        continue;
      Finding F{FD, WarnLoc(Fwd.Call), Fwd.Call->getSourceRange(), Finding::JitLoaded,
                It->second->getExprLoc(), FD->getNameAsString(), {}, {}, false, {}};
      StartOfBodyFix(F);
      Findings.push_back(std::move(F));
      for (const auto &Other : Facts.Forwards)
        Reported.insert(Other.Call);
      break;
    }
  }

  // (a) Code after eval() up to the next train(): from the CFG, what some
  // path from eval() reaches without passing a train() (a train() in one
  // branch ends the region on that branch only); in a lambda, source order.
  llvm::SmallVector<const Stmt *, 4> TrainStmts(Facts.Trains.begin(), Facts.Trains.end());
  for (size_t I = 0; I < Facts.Evals.size(); ++I) {
    const ExecutionOrder &Order = Shared.order(); // built for a body with an eval() only
    const CallExpr *Eval = Facts.Evals[I];
    const CallExpr *End = nullptr;
    for (const CallExpr *Train : Facts.Trains)
      if (Before(Eval, Train) && (!End || Before(Train, End)))
        End = Train;
    auto InRegion = [&](const Stmt *S) {
      if (Order.isPlaced(Eval) && Order.isPlaced(S))
        return Order.reachesAvoiding(Eval, S, TrainStmts);
      return Before(Eval, S) && (!End || Before(S, End));
    };
    // eval() calls inside this region belong to it.
    while (I + 1 < Facts.Evals.size() && InRegion(Facts.Evals[I + 1]))
      ++I;
    if (llvm::any_of(Facts.Backwards, InRegion))
      continue;
    llvm::SmallVector<const CallExpr *, 4> Flagged;
    const BodyFacts::Forward *First = nullptr;
    for (const auto &Fwd : Facts.Forwards)
      if (InRegion(Fwd.Call) && !Reported.contains(Fwd.Call) && Unguarded(Fwd.Call)) {
        Flagged.push_back(Fwd.Call);
        if (!First)
          First = &Fwd;
      }
    if (Flagged.empty())
      continue;
    for (const CallExpr *C : Flagged)
      Reported.insert(C);

    Finding F{FD, WarnLoc(Flagged.front()), Flagged.front()->getSourceRange(),
              Finding::AfterEval, Eval->getExprLoc(), FD->getNameAsString(), {}, {}, true, {}};
    SetHelper(F, *First);
    // The guard goes right after the eval() statement, in its block, when that
    // block holds every flagged forward and nothing after it trains.
    const Stmt *EvalStmt = Eval;
    const Stmt *Parent = PM.getParent(EvalStmt);
    while (Parent && isa<ExprWithCleanups, ImplicitCastExpr, ParenExpr>(Parent)) {
      EvalStmt = Parent;
      Parent = PM.getParent(Parent);
    }
    const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent);
    bool Covers = Block && llvm::all_of(Flagged, [&](const CallExpr *C) {
                    for (const Stmt *P = C; P; P = PM.getParent(P))
                      if (P == Block)
                        return true;
                    return false;
                  });
    if (Covers) {
      for (const CallExpr *Train : Facts.Trains)
        if (Before(Eval, Train) &&
            expandedBefore(compat::beginLoc(Train), Block->getRBracLoc(), *SM) &&
            isDescendant(Train, Block, PM)) {
          F.BlockingTrain = Train->getExprLoc();
          break;
        }
      SourceLocation End = EvalStmt->getEndLoc();
      if (!F.BlockingTrain.isValid() && End.isFileID() && compat::beginLoc(EvalStmt).isFileID()) {
        SourceLocation AfterSemi =
            Lexer::findLocationAfterToken(End, tok::semi, *SM, Ctx.getLangOpts(), false);
        if (AfterSemi.isValid()) {
          F.FixLoc = AfterSemi;
          F.FixIndent = "\n" + indentationAt(compat::beginLoc(EvalStmt), *SM);
        }
      }
    }
    Findings.push_back(std::move(F));
  }
}

void EvalWithoutNoGradCheck::reportAtEndOfUnit() {
  // A function whose every chain of callers holds a guard runs no forward
  // pass with autograd on (callers in other files: by the linked summaries);
  // one whose tensor a caller trains through (here, or in another file by
  // the linked summaries) is not evaluation code.
  // The call graph is the core's, built on the first finding that asks.
  auto Graph = [&]() -> const CallGraph & { return core().calls(*Unit); };
  auto Silenced = [&](const FunctionDecl *Function) {
    if (Graph().guardedOnEveryPath(Function, CallDepth))
      return true;
    // No caller here: every caller in other files holds a guard (linked).
    if (Graph().callers(Function).empty() && core().calledOnlyUnderGuardsElsewhere(Function))
      return true;
    if (!mayHoldTensor(Function->getReturnType()))
      return false;
    if (core().resultReachesBackwardElsewhere(Function))
      return true;
    return llvm::any_of(Graph().callers(Function), [&](const CallGraph::Site *S) {
      return Graph().runsBackward(S->Caller);
    });
  };
  llvm::SmallPtrSet<const FunctionDecl *, 8> Emitting;
  for (const Finding &F : Findings)
    if (!Silenced(F.Function))
      Emitting.insert(F.Function->getCanonicalDecl());
  for (const Finding &F : Findings) {
    if (!Emitting.contains(F.Function->getCanonicalDecl()))
      continue;
    // The helper reports its own forward pass; the guard it gets covers this call.
    if (F.Helper && Emitting.contains(F.Helper->getCanonicalDecl()))
      continue;
    const GuardKind Kind = guardFor(F);
    std::string GuardText = guardDeclaration(F.Function->getCanonicalDecl(), Kind);
    {
      auto D = diag(F.CallLoc, "forward pass in evaluation code runs with autograd enabled: its "
                               "activations and graph are kept for a backward pass that never "
                               "comes; hold a '%0' while evaluating%select{|: no tensor it "
                               "computes leaves the function, so inference mode, which also "
                               "skips view and version tracking, is safe here}1")
               << (Kind == GuardKind::NoGradGuard ? names::NoGradGuardSpelling
                                                  : names::InferenceModeSpelling)
               << (Kind != Guard) << F.CallRange;
      if (F.FixLoc.isValid())
        D << FixItHint::CreateInsertion(F.FixLoc, F.InsertAfter ? F.FixIndent + GuardText
                                                                 : GuardText + F.FixIndent);
    }
    switch (F.Reason) {
    case Finding::AfterEval:
      diag(F.EvidenceLoc, "module switched to evaluation mode here", DiagnosticIDs::Note);
      break;
    case Finding::ByName:
      diag(F.EvidenceLoc, "'%0' is evaluation code by its name (option EvalFunctionPattern)",
           DiagnosticIDs::Note)
          << F.FunctionName;
      break;
    case Finding::JitLoaded:
      diag(F.EvidenceLoc, "module loaded with 'torch::jit::load' here and not trained in this function",
           DiagnosticIDs::Note);
      break;
    }
    if (F.Helper && F.HelperForward.isValid())
      diag(F.HelperForward, "'%0' runs this forward pass", DiagnosticIDs::Note)
          << F.Helper->getNameAsString();
    if (F.Helper && F.HelperElsewhere) {
      // Its own body (level 0), or the functions it calls, in its file or in
      // others (the linked summaries compose chains over several files).
      const FunctionSummary *Ext = core().externalSummary(F.Helper);
      diag(F.Helper->getLocation(),
           "'%0' is defined in another file and runs a forward pass there%select{| through the "
           "functions it calls}1 (linked summaries, option TorchSummaries)",
           DiagnosticIDs::Note)
          << F.Helper->getNameAsString() << (Ext && Ext->UnguardedForward > 0);
    }
    for (const CallGraph::Site *S : Graph().unguardedChain(F.Function, CallDepth))
      diag(compat::beginLoc(S->Call), "'%0' is called here with autograd enabled", DiagnosticIDs::Note)
          << S->Call->getDirectCallee()->getNameAsString();
    if (F.BlockingTrain.isValid())
      diag(F.BlockingTrain,
           "no fix-it: 'train()' follows in the same block; give the evaluation a scope of its "
           "own that holds the guard",
           DiagnosticIDs::Note);
  }
  Findings.clear();
  Unit = nullptr;
  Helpers.clear();
  DeclaredNames.clear();
  ResultsStay.clear();
}

} // namespace clang::tidy::torch_check
