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
// Inference by what a function does (rule d, findInference): besides eval(),
// a name and torch::jit::load, a function is evaluation code when it runs a
// forward pass with autograd on, trains nothing (no backward pass, step,
// zero_grad or train() in its body or, by the core's summaries, in the
// functions it calls, CallDepth levels) and no value with autograd history
// leaves it: historyStaysIn, the history analysis of its body with the
// parameters taken to carry history (a guard over the whole body would cut
// theirs too) and the tensor members and globals it reads counted as
// sources; a return, a write to anything but its own locals, an insertion
// into such a container, an argument of a user function that may keep it
// (keepsNoHistory: the same question about the callee, its result allowed
// to carry) or a lambda counts as leaving. At the end of the translation
// unit its callers decide: silent when one of them runs a backward pass or
// an optimizer step in its own body (a target or a loss built from the
// detached result), when the linked summaries say a caller elsewhere feeds
// its result into a backward pass, and, as for every finding, when every
// chain of callers holds a guard.
//

#include "EvalWithoutNoGradCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Escapes.h"
#include "utils/ExecutionOrder.h"
#include "utils/GradGuards.h"
#include "utils/History.h"
#include "utils/Matchers.h"
#include "utils/ModeRestore.h"
#include "utils/NameParts.h"
#include "utils/Summaries.h"
#include "utils/ThreadBodies.h"
#include "utils/TorchNames.h"
#include "utils/ValueUses.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

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
      // Every parameter of its module frozen before it: no graph to keep.
      if (Shared.runsFrozen(F.S))
        break;
      Facts.Forwards.push_back({Call, DefUse::variableNamed(forwardCallObject(Call)), nullptr, nullptr});
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
        if (const VarDecl *VD = DefUse::variableNamed(
                stripHolderArrow(cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument())))
          Facts.TrainedVars.insert(VD);
      break;
    default:
      continue;
    }
    Classified.insert(Call);
  }
  // A call on a module whose parameters are frozen (`actor->dist(s)`) runs
  // no graph of it.
  for (const auto &[Call, Callee] : Shared.userFunctionCalls())
    if (!Classified.contains(Call) && !Shared.runsFrozen(Call))
      Facts.UserCalls.push_back({Callee, Call});
  return Facts;
}

/// The `torch::jit::load` call that gives \p VD its value last in the
/// body's walk: its initialiser (\p VD declared in the body) or a later
/// `VD = torch::jit::load(...)`; null when none does.
const CallExpr *jitLoadOf(const VarDecl *VD, const FunctionFacts &Facts) {
  auto AsLoad = [](const Expr *E) -> const CallExpr * {
    const auto *Call = dyn_cast<CallExpr>(E->IgnoreImplicit()->IgnoreParens());
    return isJitLoadCall(Call) ? Call : nullptr;
  };
  const CallExpr *Last = nullptr;
  if (const Expr *Init = VD->getInit(); Init && Facts.declaration(VD))
    Last = AsLoad(Init);
  for (const auto &[Assignment, Value] : Facts.defUse().assignments(VD))
    if (isa<CXXOperatorCallExpr>(Assignment))
      if (const CallExpr *Load = AsLoad(Value))
        Last = Load;
  return Last;
}

} // namespace

EvalWithoutNoGradCheck::EvalWithoutNoGradCheck(StringRef Name, ClangTidyContext *Context,
                                               std::shared_ptr<AnalysisCore> Core)
    : CoreCheck(Name, Context, std::move(Core)),
      EvalFunctionPattern(Options.get("EvalFunctionPattern", DefaultEvalFunctionPattern)),
      Guard(Options.get("GuardType", GuardKind::NoGradGuard)),
      SuggestInferenceMode(boolOption("SuggestInferenceMode", false)),
      InferenceByUse(boolOption("InferenceByUse", true)),
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
  Options.store(Opts, "InferenceByUse", InferenceByUse ? "true" : "false");
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

EvalWithoutNoGradCheck::GuardKind EvalWithoutNoGradCheck::guardFor(const Finding &F) {
  // A helper's forward pass: what the helper keeps is not followed.
  if (!SuggestInferenceMode || Guard == GuardKind::InferenceMode || F.Helper ||
      F.Reason == Finding::Unused)
    return Guard;
  auto [It, New] = ResultsStay.try_emplace(F.Function->getCanonicalDecl(), false);
  if (New)
    It->second = resultsStayIn(core().facts(F.Function, F.Function->getASTContext()));
  return It->second ? GuardKind::InferenceMode : Guard;
}

std::string EvalWithoutNoGradCheck::guardDeclaration(const FunctionDecl *FD, GuardKind Kind) {
  const bool NoGrad = Kind == GuardKind::NoGradGuard;
  std::string Var = NoGrad ? "no_grad" : "guard";
  // The names the function's parameters and body declare (the guard goes
  // first in the body, where a parameter's name is taken too), collected for
  // the functions with a finding only: ModeRestore.h's declaredNames, as the
  // mode-restore fix-its avoid them, and the parameters.
  auto [It, New] = DeclaredNames.try_emplace(FD);
  if (New)
    if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->getBody()) {
      for (const ParmVarDecl *P : Def->parameters())
        if (P->getIdentifier())
          It->second.push_back(P->getName().str());
      It->second.append(declaredNames(core().facts(Def, Def->getASTContext())));
    }
  return (NoGrad ? names::NoGradGuardSpelling : names::InferenceModeSpelling).str() + " " +
         freshName(Var, It->second) + ";";
}

/// One function while checkFunction judges it.
struct EvalWithoutNoGradCheck::Scan {
  const FunctionDecl *FD;
  const CompoundStmt *Body;
  const FunctionFacts &Shared;
  BodyFacts Facts;
  /// Forward passes a finding of the function already covers.
  llvm::SmallPtrSet<const CallExpr *, 8> Reported;
  bool Found = false; ///< a finding was recorded for the function
};

namespace {

SourceLocation warnLoc(const CallExpr *Call) {
  return isa<CXXOperatorCallExpr>(Call) ? compat::beginLoc(Call) : Call->getExprLoc();
}

/// The finding's forward pass is the call of a helper that runs one.
void setHelper(EvalWithoutNoGradCheck::Finding &F, const BodyFacts::Forward &Fwd) {
  F.Helper = Fwd.Helper;
  F.HelperElsewhere = Fwd.Elsewhere;
  if (Fwd.Inner)
    F.HelperForward = warnLoc(Fwd.Inner);
}

/// The fix-it of \p F puts the guard before the first statement of \p Body.
void startOfBodyFix(EvalWithoutNoGradCheck::Finding &F, const CompoundStmt *Body,
                    const SourceManager &SM) {
  SourceLocation Loc = compat::beginLoc(Body->body_front());
  if (!Loc.isValid() || Loc.isMacroID())
    return;
  F.FixLoc = Loc;
  F.InsertAfter = false;
  SourceLocation Brace = Body->getLBracLoc();
  if (Brace.isMacroID() || SM.getSpellingLineNumber(Brace) == SM.getSpellingLineNumber(Loc))
    F.FixIndent = " ";
  else
    F.FixIndent = "\n" + indentationAt(Loc, SM);
}

/// A function the inference rule may judge by what it does: not a
/// constructor or destructor (they fill members), not a lambda's body, not a
/// template pattern, not a function a macro declares (a test framework's), not a module's forward (its callers, through the
/// holder's operator(), are not in the call graph).
bool inferenceCandidate(const FunctionDecl *FD) {
  if (isa<CXXConstructorDecl, CXXDestructorDecl>(FD) || FD->isDependentContext() ||
      !FD->getLocation().isFileID()) // a name from a macro: GoogleTest's TestBody
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (MD->getParent()->isLambda())
      return false;
    if (MD->getIdentifier() && MD->getName() == "forward" && isModuleClass(MD->getParent()))
      return false;
  }
  return true;
}

} // namespace

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

  Scan S{FD, Body, Shared, bodyFacts(Shared), {}, false};
  // Every finding needs one of: an eval() call (a), a name that says
  // evaluation (b), a TorchScript load (c), a lambda (a thread body), or a
  // body that trains nothing itself (d, inference by what it does).
  if (S.Facts.Evals.empty() && !S.Facts.HasLambda && !nameSaysEval(FD) && !Shared.has(Fact::Load) &&
      !mayBeInference(S)) {
    // (e) Training code: forward passes whose graph nothing uses.
    if (Shared.has(Fact::Backward) || Shared.has(Fact::Grad))
      findUnused(S, Ctx);
    return;
  }
  if (!addHelperForwards(S, Ctx))
    return;
  reportThreadBodies(S, Ctx);
  if (S.Facts.Forwards.empty())
    return;
  // (b) A function whose name says it evaluates (and that neither trains nor
  // runs a backward pass).
  if (S.Facts.Backwards.empty() && S.Facts.Trains.empty() && nameSaysEval(FD)) {
    findByName(S);
    return;
  }
  findJitLoaded(S, Ctx);
  findAfterEval(S, Ctx);
  if (!S.Found)
    findInference(S, Ctx);
}

bool EvalWithoutNoGradCheck::addHelperForwards(Scan &S, ASTContext &Ctx) {
  // Helpers that run a forward pass count as one where they are called; a
  // helper that trains (backward, train()) makes this function training code.
  // A helper whose own name says it evaluates gets its own finding. What a
  // helper does is the core's one model of it, CallDepth - 1 levels below
  // it (its own body at least): the unit's summaries for one defined here,
  // the linked summary for one defined in another file.
  BodyFacts &Facts = S.Facts;
  const FunctionDecl *Canonical = S.FD->getCanonicalDecl();
  const unsigned Within = CallDepth ? CallDepth - 1 : 0;
  bool AddedHelper = false;
  // A forward pass whose module differentiates inside it (forces as the
  // gradient of an energy, a gradient penalty: autograd::grad or backward in
  // the module's forward) needs autograd on: it is a backward pass here. The
  // forward's own facts in this file (no summary table built for it), its
  // linked summary in another.
  llvm::erase_if(Facts.Forwards, [&](const BodyFacts::Forward &Fwd) {
    const CallExpr *Call = Fwd.Call;
    const FunctionDecl *Def = followableCallee(Call, Ctx);
    const FunctionSummary *Ext = Def ? nullptr : externalHelper(Call, Ctx);
    if (const CXXMethodDecl *Held = !Def && !Ext ? holderForward(Call) : nullptr;
        Held && isUserFunction(Held, Ctx)) {
      Def = Held->getDefinition();
      Ext = Def ? nullptr : core().externalSummary(Held);
    }
    bool Differentiates = false;
    if (Def && Def->hasBody()) {
      const FunctionFacts &Own = core().facts(Def, Ctx);
      Differentiates = Own.has(Fact::Grad) || Own.has(Fact::Backward);
    } else if (Ext) {
      Differentiates = FunctionSummary::reaches(Ext->Backward, Within);
    }
    if (Differentiates)
      Facts.Backwards.push_back(Call);
    return Differentiates;
  });
  for (const auto &[Callee, Call] : Facts.UserCalls) {
    const FunctionDecl *Def = followableCallee(Call, Ctx);
    if (!Def) {
      // A helper defined in another file: its linked summary.
      const FunctionSummary *Ext = externalHelper(Call, Ctx);
      if (!Ext)
        continue;
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
    const SummaryTable &Table = core().summaries(Ctx);
    const FunctionSummary *Sum = Table.lookup(Def);
    if (!Sum)
      continue;
    if (FunctionSummary::reaches(Sum->Backward, Within) ||
        FunctionSummary::reaches(Sum->Train, Within))
      Facts.Backwards.push_back(Call);
    else if (const CallExpr *Inner = Table.firstUnguardedForward(Def, Within);
             Inner && !nameSaysEval(Def)) {
      Facts.Forwards.push_back({Call, nullptr, Def, Inner});
      AddedHelper = true;
    }
  }
  if (AddedHelper)
    llvm::stable_sort(Facts.Forwards, [&](const BodyFacts::Forward &A, const BodyFacts::Forward &B) {
      return startsBefore(A.Call, B.Call, *SM);
    });
  return !Facts.Forwards.empty();
}

void EvalWithoutNoGradCheck::reportThreadBodies(Scan &S, ASTContext &Ctx) {
  // Grad mode is thread-local: a forward pass in the body of a thread this
  // function starts is judged by the guards of that body alone.
  // (Without a lambda in the body there is no thread body: no walk from each
  // forward pass up to the root, quadratic on a long expression.)
  if (!S.Facts.HasLambda)
    return;
  const ParentMap &PM = S.Shared.parents();
  const BodyFacts &Facts = S.Facts;
  llvm::SmallPtrSet<const LambdaExpr *, 2> ThreadsReported;
  llvm::erase_if(S.Facts.Forwards, [&](const BodyFacts::Forward &Fwd) {
    const LambdaExpr *L = threadBodyLambda(Fwd.Call, PM);
    if (!L)
      return false;
    const auto *LBody = dyn_cast<CompoundStmt>(L->getBody());
    const VarDecl *SpawnGuard = enclosingGradGuard(L, PM, Ctx);
    bool SpawnEval =
        SpawnGuard || (nameSaysEval(S.FD) && Facts.Backwards.empty() && Facts.Trains.empty());
    auto InBody = [&](const CallExpr *C) { return isDescendant(C, L, PM); };
    bool BodyTrains = llvm::any_of(Facts.Backwards, InBody) || llvm::any_of(Facts.Trains, InBody);
    if (!LBody || !SpawnEval || BodyTrains || isGradDisabledInThreadBody(Fwd.Call, L, Ctx) ||
        !ThreadsReported.insert(L).second)
      return true;
    diagThreadBody(S, Fwd.Call, L, SpawnGuard);
    return true;
  });
}

void EvalWithoutNoGradCheck::diagThreadBody(const Scan &S, const CallExpr *Forward,
                                            const LambdaExpr *L, const VarDecl *SpawnGuard) {
  const auto *LBody = cast<CompoundStmt>(L->getBody());
  {
    auto D = diag(warnLoc(Forward),
                  "forward pass on a thread started by evaluation code runs with autograd enabled: "
                  "grad mode is thread-local, so the spawning thread's guard does not cover it; "
                  "hold a '%0' in the thread body")
             << (Guard == GuardKind::NoGradGuard ? names::NoGradGuardSpelling
                                                 : names::InferenceModeSpelling)
             << Forward->getSourceRange();
    if (!LBody->body_empty()) {
      SourceLocation Loc = compat::beginLoc(LBody->body_front());
      SourceLocation Brace = LBody->getLBracLoc();
      if (Loc.isValid() && Loc.isFileID() && Brace.isFileID()) {
        std::string Text = guardDeclaration(S.FD->getCanonicalDecl(), Guard);
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
    diag(S.FD->getLocation(), "'%0' is evaluation code by its name (option EvalFunctionPattern)",
         DiagnosticIDs::Note)
        << S.FD->getNameAsString();
  diag(compat::beginLoc(L), "the thread body starts here", DiagnosticIDs::Note);
}

void EvalWithoutNoGradCheck::findByName(Scan &S) {
  for (const auto &Fwd : S.Facts.Forwards) {
    if (S.Shared.isGuarded(Fwd.Call))
      continue;
    Finding F{S.FD, warnLoc(Fwd.Call), Fwd.Call->getSourceRange(), Finding::ByName,
              S.FD->getLocation(), S.FD->getNameAsString(), {}, {}, false, {}};
    setHelper(F, Fwd);
    startOfBodyFix(F, S.Body, *SM);
    Findings.push_back(std::move(F));
    S.Found = true;
    return;
  }
}

void EvalWithoutNoGradCheck::findJitLoaded(Scan &S, ASTContext &Ctx) {
  // (c) A TorchScript module loaded here and never trained here.
  if (!S.Facts.Backwards.empty() || !S.Shared.has(Fact::Load))
    return;
  for (const auto &Fwd : S.Facts.Forwards) {
    if (!Fwd.Object || S.Shared.isGuarded(Fwd.Call))
      continue;
    const CallExpr *Load = jitLoadOf(Fwd.Object, S.Shared);
    if (!Load || S.Facts.TrainedVars.contains(Fwd.Object))
      continue;
    Finding F{S.FD,
              warnLoc(Fwd.Call),
              Fwd.Call->getSourceRange(),
              Finding::JitLoaded,
              Load->getExprLoc(),
              S.FD->getNameAsString(),
              {},
              {},
              false,
              {}};
    startOfBodyFix(F, S.Body, *SM);
    Findings.push_back(std::move(F));
    S.Found = true;
    for (const auto &Other : S.Facts.Forwards)
      S.Reported.insert(Other.Call);
    return;
  }
}

void EvalWithoutNoGradCheck::findAfterEval(Scan &S, ASTContext &Ctx) {
  // (a) Code after eval() up to the next train(): from the CFG, what some
  // path from eval() reaches without passing a train() (a train() in one
  // branch ends the region on that branch only), a lambda body's CFG for an
  // eval() and a statement in one lambda body; source order for a pair that
  // has no order (one in a lambda, one outside it).
  const BodyFacts &Facts = S.Facts;
  auto Before = [&](const Stmt *A, const Stmt *B) { return startsBefore(A, B, *SM); };
  llvm::SmallVector<const Stmt *, 4> TrainStmts(Facts.Trains.begin(), Facts.Trains.end());
  for (size_t I = 0; I < Facts.Evals.size(); ++I) {
    const ExecutionOrder &Order = S.Shared.order(); // built for a body with an eval() only
    const CallExpr *Eval = Facts.Evals[I];
    const CallExpr *End = nullptr;
    for (const CallExpr *Train : Facts.Trains)
      if (Before(Eval, Train) && (!End || Before(Train, End)))
        End = Train;
    auto InRegion = [&](const Stmt *St) {
      if (Order.canOrder(Eval, St))
        return Order.reachesAvoiding(Eval, St, TrainStmts);
      return Before(Eval, St) && (!End || Before(St, End));
    };
    // eval() calls inside this region belong to it.
    while (I + 1 < Facts.Evals.size() && InRegion(Facts.Evals[I + 1]))
      ++I;
    if (llvm::any_of(Facts.Backwards, InRegion))
      continue;
    llvm::SmallVector<const CallExpr *, 4> Flagged;
    const BodyFacts::Forward *First = nullptr;
    for (const auto &Fwd : Facts.Forwards)
      if (InRegion(Fwd.Call) && !S.Reported.contains(Fwd.Call) && !S.Shared.isGuarded(Fwd.Call)) {
        Flagged.push_back(Fwd.Call);
        if (!First)
          First = &Fwd;
      }
    if (Flagged.empty())
      continue;
    S.Reported.insert(Flagged.begin(), Flagged.end());
    Finding F{S.FD, warnLoc(Flagged.front()), Flagged.front()->getSourceRange(),
              Finding::AfterEval, Eval->getExprLoc(), S.FD->getNameAsString(), {}, {}, true, {}};
    setHelper(F, *First);
    afterEvalFix(F, S, Eval, Flagged, Ctx);
    Findings.push_back(std::move(F));
    S.Found = true;
  }
}

void EvalWithoutNoGradCheck::afterEvalFix(Finding &F, const Scan &S, const CallExpr *Eval,
                                          llvm::ArrayRef<const CallExpr *> Flagged,
                                          ASTContext &Ctx) {
  // The guard goes right after the eval() statement, in its block, when that
  // block holds every flagged forward and nothing after it trains.
  const ParentMap &PM = S.Shared.parents();
  const Stmt *EvalStmt = Eval;
  const Stmt *Parent = PM.getParent(EvalStmt);
  while (Parent && isa<ExprWithCleanups, ImplicitCastExpr, ParenExpr>(Parent)) {
    EvalStmt = Parent;
    Parent = PM.getParent(Parent);
  }
  const auto *Block = dyn_cast_or_null<CompoundStmt>(Parent);
  if (!Block || !llvm::all_of(Flagged, [&](const CallExpr *C) { return isDescendant(C, Block, PM); }))
    return;
  for (const CallExpr *Train : S.Facts.Trains)
    if (startsBefore(Eval, Train, *SM) &&
        expandedBefore(compat::beginLoc(Train), Block->getRBracLoc(), *SM) &&
        isDescendant(Train, Block, PM)) {
      F.BlockingTrain = Train->getExprLoc();
      return;
    }
  SourceLocation End = EvalStmt->getEndLoc();
  if (!End.isFileID() || !compat::beginLoc(EvalStmt).isFileID())
    return;
  SourceLocation AfterSemi =
      Lexer::findLocationAfterToken(End, tok::semi, *SM, Ctx.getLangOpts(), false);
  if (AfterSemi.isValid()) {
    F.FixLoc = AfterSemi;
    F.FixIndent = "\n" + indentationAt(compat::beginLoc(EvalStmt), *SM);
  }
}

bool EvalWithoutNoGradCheck::mayBeInference(const Scan &S) const {
  return S.Facts.Backwards.empty() && S.Facts.Trains.empty() && !S.Facts.HasLambda &&
         !S.Shared.has(Fact::Step) && !S.Shared.has(Fact::ZeroGrad) && inferenceCandidate(S.FD);
}

void EvalWithoutNoGradCheck::findInference(Scan &S, ASTContext &Ctx) {
  // (d) Inference by what the function does: it runs a forward pass with
  // autograd on, trains nothing (its body, its callees: the summaries), and
  // no value with history leaves it. Its callers are asked at the end of the
  // translation unit (reportAtEndOfUnit).
  if (!InferenceByUse || !mayBeInference(S))
    return;
  const BodyFacts::Forward *First = nullptr;
  for (const auto &Fwd : S.Facts.Forwards)
    if (!S.Reported.contains(Fwd.Call) && !S.Shared.isGuarded(Fwd.Call)) {
      First = &Fwd;
      break;
    }
  if (!First)
    return;
  // A helper of another file whose result may carry history: what the
  // function does with that result is followed when the body's history
  // analysis sees history in it too (an argument, the parameters taken to
  // carry history, brings it: `policy.sample(observation)`); otherwise the
  // function stays silent.
  for (const auto &Fwd : S.Facts.Forwards)
    if (Fwd.Elsewhere) {
      const FunctionSummary *Ext = core().externalSummary(Fwd.Helper);
      if (!Ext)
        return;
      if ((Ext->ReturnsHistory || Ext->ReturnsHistoryFromArgs) &&
          !core().historyOf(S.FD, Ctx, /*ParamsCarry=*/true).carriesHistory(Fwd.Call))
        return;
    }
  // A function whose result carries history (whatever its arguments, or from
  // them: the parameters are taken to carry history below) is decided by its
  // history summary alone, before the unit's summaries and the escape walk
  // (most functions that run a forward pass and train nothing return it).
  if (HistoryFunctions::Summary H = core().history(Ctx).summary(S.FD, Ctx); H.Always || H.FromArgs)
    return;
  if (const FunctionSummary *Sum = core().summaries(Ctx).lookup(S.FD);
      Sum && (Sum->trains(CallDepth) || FunctionSummary::reaches(Sum->ZeroGrad, CallDepth)))
    return;
  if (!core().escapes(Ctx).historyStaysIn(S.FD, Ctx, CallDepth, /*ResultMayCarry=*/false))
    return;
  Finding F{S.FD, warnLoc(First->Call), First->Call->getSourceRange(), Finding::Inference,
            S.FD->getLocation(), S.FD->getNameAsString(), {}, {}, false, {}};
  setHelper(F, *First);
  startOfBodyFix(F, S.Body, *SM);
  Findings.push_back(std::move(F));
  S.Found = true;
}

void EvalWithoutNoGradCheck::findUnused(Scan &S, ASTContext &Ctx) {
  // (e) A forward pass in training code initialising a local whose value, and
  // every local computed from it, is only read: no backward pass, return,
  // member, parameter, container or user function ever gets it. Its graph
  // and activations are kept for nothing (a test-set forward pass run every
  // few epochs inside the training function).
  if (!InferenceByUse)
    return;
  const ParentMap &PM = S.Shared.parents();
  // A user function defined here that takes the value: it carries it on to
  // its result when it trains nothing, keeps nothing it is given and its
  // parameter reaches no backward pass (a member wrapping the criterion).
  auto PassesOn = [&](const CallExpr *Call, const Stmt *Arg) {
    const FunctionDecl *Def = followableCallee(Call, Ctx);
    const FunctionSummary *Sum = Def ? core().summaries(Ctx).lookup(Def) : nullptr;
    if (!Sum || Sum->trains(CallDepth) || !tensorish(Call->getType()) ||
        !core().escapes(Ctx).keepsNoHistory(Def, Ctx, CallDepth))
      return false;
    for (unsigned J = 0; J < Sum->Params.size(); ++J)
      if ((!Arg || argumentFor(Call, J) == Arg) && Sum->Params[J].ReachesBackward)
        return false;
    return true;
  };
  ValueUses Values(S.Shared, Ctx, PassesOn);
  for (const BodyFacts::Forward &Fwd : S.Facts.Forwards) {
    const Fact *Own = S.Shared.factFor(Fwd.Call, Fact::Forward);
    if (!Own || Own->InLambda || S.Shared.isGuarded(Fwd.Call))
      continue;
    // `auto out = net->forward(x);`, a local tensor.
    const Stmt *P = PM.getParent(Fwd.Call);
    while (P && isa<Expr>(P) &&
           skipImplicitTemporaries(cast<Expr>(P)) == skipImplicitTemporaries(Fwd.Call))
      P = PM.getParent(P);
    const auto *DS = dyn_cast_or_null<DeclStmt>(P);
    const auto *Out = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    if (!Out || !Out->getInit() || Out->getType()->isReferenceType() ||
        !isTensorType(Out->getType()))
      continue;
    // The locals the value reaches, each use ending in a read or another
    // local; any other use, or a local modified otherwise: silent.
    std::optional<ValueUses::Locals> Reached = Values.onlyRead(Out);
    if (!Reached)
      continue;
    Finding F{S.FD,
              warnLoc(Fwd.Call),
              Fwd.Call->getSourceRange(),
              Finding::Unused,
              Out->getLocation(),
              Out->getNameAsString(),
              {},
              {},
              false,
              {}};
    // The fix-it: the guard right before the declaration, in a block of its
    // own (not the function's body), when the rest of that block only
    // computes the locals the value reaches: the guard covers nothing else.
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(PM.getParent(DS));
        Block && Block != S.Body && DS->getBeginLoc().isFileID() &&
        Values.tailComputesOnly(Block, DS, *Reached, Fwd.Call)) {
      F.FixLoc = DS->getBeginLoc();
      F.InsertAfter = false;
      F.FixIndent = "\n" + indentationAt(F.FixLoc, *SM);
    }
    Findings.push_back(std::move(F));
    S.Found = true;
  }
}

bool EvalWithoutNoGradCheck::silenced(const Finding &F) {
  // A function whose every chain of callers holds a guard runs no forward
  // pass with autograd on (callers in other files: by the linked summaries);
  // one whose tensor a caller trains through (here, or in another file by
  // the linked summaries) is not evaluation code.
  // The call graph is the core's, built on the first finding that asks.
  const CallGraph &Graph = core().calls(*Unit);
  const FunctionDecl *Function = F.Function;
  // A chain of callers here may also start at a function (the finding's own,
  // when nobody here calls it) every caller of which in other files holds a
  // guard, over any number of files (linked).
  if (Graph.guardedOnEveryPath(Function, CallDepth, [&](const FunctionDecl *Entry) {
        return core().calledOnlyUnderGuardsElsewhere(Entry);
      }))
    return true;
  if (F.Reason == Finding::Inference) {
    // Only detached values leave the function, but a caller that trains in
    // its own body may build its loss or target from them: left to it.
    if (core().resultReachesBackwardElsewhere(Function))
      return true;
    const SummaryTable &Table = core().summaries(*Unit);
    return llvm::any_of(Graph.callers(Function), [&](const CallGraph::Site *S) {
      const FunctionSummary *Caller = Table.lookup(S->Caller);
      return Graph.runsBackward(S->Caller) ||
             (Caller && (FunctionSummary::reaches(Caller->Backward, 0) ||
                         FunctionSummary::reaches(Caller->Step, 0)));
    });
  }
  if (!mayHoldTensor(Function->getReturnType()))
    return false;
  if (core().resultReachesBackwardElsewhere(Function))
    return true;
  return llvm::any_of(Graph.callers(Function), [&](const CallGraph::Site *S) {
    return Graph.runsBackward(S->Caller);
  });
}

void EvalWithoutNoGradCheck::reportAtEndOfUnit() {
  llvm::SmallPtrSet<const FunctionDecl *, 8> Emitting;
  for (const Finding &F : Findings)
    if (!silenced(F))
      Emitting.insert(F.Function->getCanonicalDecl());
  for (const Finding &F : Findings) {
    if (!Emitting.contains(F.Function->getCanonicalDecl()))
      continue;
    // The helper reports its own forward pass; the guard it gets covers this call.
    if (F.Helper && Emitting.contains(F.Helper->getCanonicalDecl()))
      continue;
    emit(F);
  }
  Findings.clear();
  Unit = nullptr;
  DeclaredNames.clear();
  ResultsStay.clear();
}

void EvalWithoutNoGradCheck::emit(const Finding &F) {
  const GuardKind Kind = guardFor(F);
  std::string GuardText = guardDeclaration(F.Function->getCanonicalDecl(), Kind);
  {
    auto D =
        F.Reason == Finding::Unused
            ? diag(F.CallLoc, "forward pass runs with autograd enabled in training code, but "
                              "nothing computed from its result reaches a backward pass: its "
                              "activations and graph are kept for nothing; hold a '%0' while "
                              "it runs%select{|}1")
        : F.Reason == Finding::Inference
            ? diag(F.CallLoc, "forward pass runs with autograd enabled in a function that "
                              "never backpropagates: only detached values leave it, so its "
                              "activations and graph are kept for nothing; hold a '%0' "
                              "while it runs%select{|: no tensor it computes leaves the "
                              "function, so inference mode, which also skips view and "
                              "version tracking, is safe here}1")
            : diag(F.CallLoc, "forward pass in evaluation code runs with autograd enabled: its "
                              "activations and graph are kept for a backward pass that never "
                              "comes; hold a '%0' while evaluating%select{|: no tensor it "
                              "computes leaves the function, so inference mode, which also "
                              "skips view and version tracking, is safe here}1");
    D << (Kind == GuardKind::NoGradGuard ? names::NoGradGuardSpelling
                                         : names::InferenceModeSpelling)
      << (Kind != Guard) << F.CallRange;
    if (F.FixLoc.isValid())
      D << FixItHint::CreateInsertion(F.FixLoc, F.InsertAfter ? F.FixIndent + GuardText
                                                               : GuardText + F.FixIndent);
  }
  noteEvidence(F);
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
  for (const CallGraph::Site *S : core().calls(*Unit).unguardedChain(F.Function, CallDepth))
    diag(compat::beginLoc(S->Call), "'%0' is called here with autograd enabled", DiagnosticIDs::Note)
        << S->Call->getDirectCallee()->getNameAsString();
  if (F.BlockingTrain.isValid())
    diag(F.BlockingTrain,
         "no fix-it: 'train()' follows in the same block; give the evaluation a scope of its "
         "own that holds the guard",
         DiagnosticIDs::Note);
}

void EvalWithoutNoGradCheck::noteEvidence(const Finding &F) {
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
  case Finding::Unused:
    diag(F.EvidenceLoc,
         "'%0' and what is computed from it are only read (item(), printing, comparisons): "
         "no backward pass, result or storage outside the function's locals gets them",
         DiagnosticIDs::Note)
        << F.FunctionName;
    break;
  case Finding::Inference:
    diag(F.EvidenceLoc,
         "'%0' is inference by what it does: neither it, nor the functions it calls, nor its "
         "callers here run a backward pass or an optimizer step, and no value with autograd "
         "history leaves it",
         DiagnosticIDs::Note)
        << F.FunctionName;
    break;
  }
}

} // namespace clang::tidy::torch_check
