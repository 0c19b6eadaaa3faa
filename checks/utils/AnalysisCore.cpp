//===--- AnalysisCore.cpp - libtorch-tidy ---------------------------------===//

#include "AnalysisCore.h"
#include "Escapes.h"
#include "FunctionDispatch.h"
#include "GradGuards.h"
#include "LoopVariables.h"
#include "Matchers.h"
#include "Summaries.h"
#include "TorchNames.h"
#include "TorchMembers.h"
#include "TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/FileSystem.h"
#include <mutex>

namespace clang::tidy::torch_check {

// ---- one helper per question ------------------------------------------------

const Expr *stripCopies(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = Cast->getSubExpr();
    else if (const auto *Tmp = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = Tmp->getSubExpr();
    else if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = Bind->getSubExpr();
    else if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Next))
      Next = Cleanups->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(Next);
             Construct && Construct->getNumArgs() == 1 &&
             Construct->getConstructor()->isCopyOrMoveConstructor())
      Next = Construct->getArg(0);
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Next);
             Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
             Op->getNumArgs() == 1)
      Next = Op->getArg(0);
    else if (const auto *UO = dyn_cast<UnaryOperator>(Next); UO && UO->getOpcode() == UO_Deref)
      Next = UO->getSubExpr();
    if (Next == E)
      break;
    E = Next;
  }
  return E;
}

const ValueDecl *namedVariable(const Expr *E) { return namedDecl(stripCopies(E)); }

const ValueDecl *storageVariable(const Expr *E) {
  // Views first (`k.select(0, i)`, `k.index({...})`), then LoopVariables.h's
  // storageOf (subscripts, members, std::get, `*p`); a subscript's object
  // again (a loop, not a recursion: `a[i][j]...` nests as deep as it is spelt).
  for (;;) {
    for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
      const auto *Call = dyn_cast<CXXMemberCallExpr>(stripCopies(E));
      if (!Call || classifyTensorMethod(Call) != TensorMethodKind::View)
        break;
      E = Call->getImplicitObjectArgument();
    }
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(stripCopies(E));
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      E = Op->getArg(0);
      continue;
    }
    return E ? storageOf(E) : nullptr;
  }
}

/// Member operators called as `a op b` put the object first.
static unsigned argumentShift(const CallExpr *Call) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
    if (isa_and_nonnull<CXXMethodDecl>(Op->getDirectCallee()) &&
        !cast<CXXMethodDecl>(Op->getDirectCallee())->isStatic())
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

// ---- facts ------------------------------------------------------------------

namespace {
class FactCollector : public RecursiveASTVisitor<FactCollector> {
public:
  FactCollector(std::vector<Fact> &Facts, llvm::SmallPtrSetImpl<const IdentifierInfo *> &Names,
                llvm::SmallVectorImpl<std::pair<const CallExpr *, const FunctionDecl *>> &UserCalls,
                bool &FollowsCalls, std::bitset<NUM_OVERLOADED_OPERATORS> &Operators,
                FunctionFacts::BodyShape &Shape, ASTContext &Ctx)
      : Facts(Facts), Names(Names), UserCalls(UserCalls), FollowsCalls(FollowsCalls),
        Operators(Operators), Shape(Shape), Ctx(Ctx) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    Shape.Lambda = true;
    ++LambdaDepth;
    bool R = RecursiveASTVisitor::TraverseLambdaExpr(L);
    --LambdaDepth;
    return R;
  }

  bool VisitVarDecl(VarDecl *VD) {
    switch (guardVarEffect(VD, Ctx)) {
    case GradEffect::Disables:
      add(Fact::GradOff, VD->getInit() ? static_cast<const Stmt *>(VD->getInit()) : nullptr, VD);
      break;
    case GradEffect::Enables:
      add(Fact::GradOn, VD->getInit(), VD);
      break;
    case GradEffect::Unknown:
      add(Fact::GradUnknown, VD->getInit(), VD);
      break;
    case GradEffect::None:
      break;
    }
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    if (const CXXConstructorDecl *Ctor = Construct->getConstructor()) {
      addName(Ctor->getParent()->getIdentifier());
      if (!Shape.OptimizerConstruction && Construct->getNumArgs() >= 1 &&
          !Ctor->isCopyOrMoveConstructor() && isOptimizerClass(Ctor->getParent()))
        Shape.OptimizerConstruction = true;
    }
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    addCalleeName(Call);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      Operators.set(Op->getOperator());
    if (!Shape.OptimizerConstruction)
      Shape.OptimizerConstruction = makesOptimizer(Call);
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && isUserFunction(Callee, Ctx) && !isBackwardOrGradCall(Call))
      UserCalls.push_back({Call, Callee->getCanonicalDecl()});
    if (!FollowsCalls && (followableCallee(Call, Ctx) || externalCallee(Call, Ctx)))
      FollowsCalls = true;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      operatorCall(Op);
    if (isForwardCall(Call)) {
      add(Fact::Forward, Call, nullptr, forwardCallObject(Call));
      return true;
    }
    if (isLossFunctionCall(Call)) {
      add(Fact::Loss, Call);
      return true;
    }
    if (isBackwardOrGradCall(Call)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      bool IsGrad = FD && isNamed(FD, names::AutogradGrad);
      const Expr *Obj = memberCallObject(Call);
      if (!Obj && Call->getNumArgs())
        Obj = Call->getArg(0);
      add(IsGrad ? Fact::Grad : Fact::Backward, Call, nullptr, Obj);
      return true;
    }
    if (isOptimizerStepCall(Call)) {
      add(Fact::Step, Call, nullptr, memberCallObject(Call));
      return true;
    }
    if (isZeroGradCall(Call)) {
      add(Fact::ZeroGrad, Call, nullptr, memberCallObject(Call));
      return true;
    }
    switch (classifySetGradEnabled(Call, Ctx)) {
    case SetGradEnabled::Disables:
      add(Fact::GradOff, Call);
      return true;
    case SetGradEnabled::Enables:
      add(Fact::GradOn, Call);
      return true;
    case SetGradEnabled::Unknown:
      add(Fact::GradUnknown, Call);
      return true;
    case SetGradEnabled::NotACall:
      break;
    }
    if (ModeSwitch Mode = moduleModeSwitch(Call, Ctx); Mode != ModeSwitch::None) {
      add(Mode == ModeSwitch::Eval ? Fact::Eval : Fact::Train, Call, nullptr, memberCallObject(Call));
      return true;
    }
    switch (classifyTensorMethod(Call)) {
    case TensorMethodKind::InPlace: {
      const Expr *Value = Call->getNumArgs() ? Call->getArg(0) : nullptr;
      add(Fact::InPlace, Call, nullptr, memberCallObject(Call), Value);
      return true;
    }
    case TensorMethodKind::View:
      add(Fact::View, Call, nullptr, memberCallObject(Call));
      return true;
    case TensorMethodKind::Sync:
      add(Fact::Sync, Call, nullptr, memberCallObject(Call));
      return true;
    case TensorMethodKind::Detach:
    case TensorMethodKind::Other:
      break;
    }
    if (isDeviceSynchronizeCall(Call)) {
      add(Fact::Sync, Call);
      return true;
    }
    if (isClockReading(Call)) {
      add(Fact::ClockRead, Call);
      return true;
    }
    if (isEmptyCacheCall(Call)) {
      add(Fact::EmptyCache, Call);
      return true;
    }
    if (isJitLoadCall(Call)) {
      add(Fact::Load, Call);
      return true;
    }
    if (isContainerInsertCall(Call)) {
      const Expr *Value = Call->getNumArgs() ? Call->getArg(Call->getNumArgs() - 1) : nullptr;
      add(Fact::ContainerInsert, Call, nullptr, memberCallObject(Call), Value);
      return true;
    }
    if (const FunctionDecl *Def = followableCallee(Call, Ctx)) {
      size_t I = add(Fact::UserCall, Call);
      Facts[I].Callee = SummaryTable::key(Def);
      Facts[I].Definition = Def;
    }
    return true;
  }

private:
  /// std::make_unique<Optimizer>(...) / std::make_shared<Optimizer>(...).
  static bool makesOptimizer(const CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() ||
        (FD->getName() != "make_unique" && FD->getName() != "make_shared") ||
        !FD->isInStdNamespace() || Call->getNumArgs() == 0)
      return false;
    const auto *Args = FD->getTemplateSpecializationArgs();
    return Args && Args->size() >= 1 && Args->get(0).getKind() == TemplateArgument::Type &&
           isOptimizerClass(Args->get(0).getAsType()->getAsCXXRecordDecl());
  }

  void addName(const IdentifierInfo *II) {
    if (II)
      Names.insert(II);
  }

  /// The callee's own name, resolved or not (in a template: an overload set,
  /// a member of a dependent object).
  void addCalleeName(const CallExpr *Call) {
    if (const FunctionDecl *FD = Call->getDirectCallee()) {
      addName(FD->getIdentifier());
      return;
    }
    const Expr *Callee = Call->getCallee();
    if (!Callee)
      return;
    Callee = Callee->IgnoreParenImpCasts();
    if (const auto *Overloads = dyn_cast<OverloadExpr>(Callee))
      addName(Overloads->getName().getAsIdentifierInfo());
    else if (const auto *Dependent = dyn_cast<CXXDependentScopeMemberExpr>(Callee))
      addName(Dependent->getMember().getAsIdentifierInfo());
    else if (const auto *Scoped = dyn_cast<DependentScopeDeclRefExpr>(Callee))
      addName(Scoped->getDeclName().getAsIdentifierInfo());
    else if (const auto *Member = dyn_cast<MemberExpr>(Callee))
      addName(Member->getMemberDecl()->getIdentifier());
  }

  void operatorCall(const CXXOperatorCallExpr *Op) {
    if (Op->getNumArgs() != 2)
      return;
    // `std::cout << t` copies the tensor's values to the host: it waits for
    // the work that computes them.
    if (Op->getOperator() == OO_LessLess && isTensorType(Op->getArg(1)->getType())) {
      add(Fact::Sync, Op, nullptr, Op->getArg(1)->IgnoreParenImpCasts());
      return;
    }
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Op->getDirectCallee());
    if (!MD || (!isDerivedFromOrSame(MD->getParent(), names::Tensor) &&
                !isDerivedFromOrSame(MD->getParent(), names::TensorBase)))
      return;
    const Expr *LHS = Op->getArg(0)->IgnoreParenImpCasts();
    switch (Op->getOperator()) {
    case OO_Equal: {
      // `k[0] = f(x)` and `k.index({...}) = f(x)` write k's storage (assigning
      // to a temporary Tensor copies into it); `k = f(x)` rebinds k.
      const auto *Sub = dyn_cast<CXXOperatorCallExpr>(stripCopies(LHS));
      const auto *View = dyn_cast<CXXMemberCallExpr>(stripCopies(LHS));
      bool Indexed = (Sub && Sub->getOperator() == OO_Subscript) ||
                     (View && classifyTensorMethod(View) == TensorMethodKind::View);
      if (Indexed)
        add(Fact::IndexedAssign, Op, nullptr, LHS, Op->getArg(1));
      return;
    }
    case OO_PlusEqual:
    case OO_MinusEqual:
    case OO_StarEqual:
    case OO_SlashEqual:
      add(Fact::InPlace, Op, nullptr, LHS, Op->getArg(1));
      return;
    default:
      return;
    }
  }

  size_t add(Fact::Kind K, const Stmt *S, const ValueDecl *Decl = nullptr,
             const Expr *Object = nullptr, const Expr *Value = nullptr) {
    Fact F{K, S};
    F.Object = Object ? stripHolderArrow(Object) : nullptr;
    F.ObjectDecl = Decl ? Decl : storageVariable(Object);
    F.Value = Value;
    F.InLambda = LambdaDepth > 0;
    Facts.push_back(F);
    return Facts.size() - 1;
  }

  std::vector<Fact> &Facts;
  llvm::SmallPtrSetImpl<const IdentifierInfo *> &Names;
  llvm::SmallVectorImpl<std::pair<const CallExpr *, const FunctionDecl *>> &UserCalls;
  bool &FollowsCalls;
  std::bitset<NUM_OVERLOADED_OPERATORS> &Operators;
  FunctionFacts::BodyShape &Shape;
  ASTContext &Ctx;
  unsigned LambdaDepth = 0;
};
} // namespace

FunctionFacts::FunctionFacts(const FunctionDecl *FD, ASTContext &Ctx)
    : FD(FD), Body(FD ? FD->getBody() : nullptr), Ctx(Ctx) {
  if (Body)
    FactCollector(Facts, CalleeNames, UserFunctionCalls, FollowsCalls, Operators, Shape, Ctx)
        .TraverseStmt(const_cast<Stmt *>(Body));
}

bool FunctionFacts::callsNamed(llvm::function_ref<bool(llvm::StringRef)> Pred) const {
  return llvm::any_of(CalleeNames, [&](const IdentifierInfo *II) { return Pred(II->getName()); });
}

llvm::SmallVector<const Fact *, 4> FunctionFacts::of(Fact::Kind K) const {
  llvm::SmallVector<const Fact *, 4> Result;
  for (const Fact &F : Facts)
    if (F.K == K)
      Result.push_back(&F);
  return Result;
}

bool FunctionFacts::has(Fact::Kind K) const {
  return llvm::any_of(Facts, [K](const Fact &F) { return F.K == K; });
}

const Fact *FunctionFacts::factFor(const Stmt *S, Fact::Kind K) const {
  for (const Fact &F : Facts)
    if (F.S == S && F.K == K)
      return &F;
  return nullptr;
}

const ParentMap &FunctionFacts::parents() const {
  if (!PM)
    PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
  return *PM;
}

const ExecutionOrder &FunctionFacts::order() const {
  if (!Order)
    Order = std::make_unique<ExecutionOrder>(FD, Body, Ctx);
  return *Order;
}

const DefUse &FunctionFacts::defUse() const {
  if (!Defs)
    Defs = std::make_unique<DefUse>(Body);
  return *Defs;
}

bool FunctionFacts::isGuarded(const Stmt *S) const {
  if (!Guards)
    Guards = std::make_unique<GradGuardCache>(parents(), Ctx);
  return Guards->isDisabledAt(S);
}

// ---- the context ------------------------------------------------------------

AnalysisCore::AnalysisCore() = default;
AnalysisCore::~AnalysisCore() = default;

void AnalysisCore::sync(ASTContext &Ctx) {
  if (!Stale && Current == &Ctx)
    return;
  Current = &Ctx;
  Stale = false;
  Facts.clear();
  Loops.clear();
  LinkedLoops.clear();
  Summaries.reset();
  Escapes.reset();
  History.reset();
  Calls.reset();
  Functions.clear();
  FunctionsListed = false;
}

const FunctionFacts &AnalysisCore::facts(const FunctionDecl *FD, ASTContext &Ctx) {
  sync(Ctx);
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def)
    Def = FD;
  std::unique_ptr<FunctionFacts> &Slot = Facts[Def];
  if (!Slot)
    Slot = std::make_unique<FunctionFacts>(Def, Ctx);
  return *Slot;
}

const FunctionFacts *AnalysisCore::factsIfBuilt(const FunctionDecl *FD, ASTContext &Ctx) {
  sync(Ctx);
  const FunctionDecl *Def = FD->getDefinition();
  auto It = Facts.find(Def ? Def : FD);
  return It == Facts.end() ? nullptr : It->second.get();
}

const TrainingLoopAnalysis &AnalysisCore::trainingLoops(const FunctionDecl *FD,
                                                        ASTContext &Ctx,
                                                        unsigned CallDepth, bool Linked) {
  sync(Ctx);
  // A body that calls no helper has one analysis for every depth.
  if (CallDepth > 0) {
    const TrainingLoopAnalysis &Local = trainingLoops(FD, Ctx, 0);
    if (Local.followsNoCall())
      return Local;
  }
  std::unique_ptr<TrainingLoopAnalysis> &Slot = Loops[{FD, CallDepth}];
  if (!Slot) {
    // Every training loop has an optimizer step: a body that calls nothing
    // named `step` (and, deeper, no helper) has none, and no check looks at
    // its other events.
    const FunctionFacts &F = facts(FD, Ctx);
    if (!F.callsNamed("step") && (CallDepth == 0 || !F.followsCalls()))
      Slot = TrainingLoopAnalysis::withoutSteps(FD->getBody(), Ctx, !F.followsCalls());
    else
      Slot = std::make_unique<TrainingLoopAnalysis>(
          FD->getBody(), Ctx, CallDepth, nullptr,
          [&F]() -> const ParentMap & { return F.parents(); });
  }
  // Without a linked file the answers are those of no summary: the same
  // analysis, built again only to record the questions when they are written.
  if (!Linked || !Slot->callsOtherUnits() || (!External && !writesSummaries()))
    return *Slot;
  std::unique_ptr<TrainingLoopAnalysis> &LinkedSlot = LinkedLoops[{FD, CallDepth}];
  if (!LinkedSlot)
    LinkedSlot = std::make_unique<TrainingLoopAnalysis>(
        FD->getBody(), Ctx, CallDepth,
        [this](const FunctionDecl *Callee) { return externalSummary(Callee); },
        [&]() -> const ParentMap & { return facts(FD, Ctx).parents(); });
  return *LinkedSlot;
}

llvm::ArrayRef<const FunctionDecl *> AnalysisCore::userFunctions(ASTContext &Ctx) {
  sync(Ctx);
  if (!FunctionsListed) {
    // One walk of the declarations outside system headers (Matchers.h).
    Functions.clear();
    forEachUserFunction(Ctx.getTranslationUnitDecl(), Ctx.getSourceManager(),
                        [&](const FunctionDecl *FD) { Functions.push_back(FD); });
    FunctionsListed = true;
  }
  return Functions;
}

FunctionDispatch &AnalysisCore::dispatch() {
  if (!Dispatch)
    Dispatch = std::make_unique<FunctionDispatch>(*this);
  return *Dispatch;
}

HistoryFunctions &AnalysisCore::history(ASTContext &Ctx) {
  sync(Ctx);
  if (!History) {
    History = std::make_unique<HistoryFunctions>();
    // The history analyses share the facts' parent map of each body.
    History->shareParents([this, &Ctx](const FunctionDecl *FD) -> const ParentMap & {
      return facts(FD, Ctx).parents();
    });
  }
  return *History;
}

HistoryEscapes &AnalysisCore::escapes(ASTContext &Ctx) {
  HistoryFunctions &H = history(Ctx);
  if (!Escapes)
    Escapes = std::make_unique<HistoryEscapes>(
        H, [this](const FunctionDecl *FD) { return keepsNoHistoryElsewhere(FD); });
  return *Escapes;
}

// ---- history ----------------------------------------------------------------

const HistoryAnalysis &AnalysisCore::historyOf(const FunctionDecl *FD, ASTContext &Ctx,
                                               bool ParamsCarry) {
  return history(Ctx).analysis(FD, Ctx, ParamsCarry);
}

bool AnalysisCore::runsForwardAndBackward(const FunctionDecl *FD, ASTContext &Ctx) {
  const FunctionFacts &F = facts(FD, Ctx);
  return F.has(Fact::Forward) && (F.has(Fact::Backward) || F.has(Fact::Grad));
}

const CallGraph &AnalysisCore::calls(ASTContext &Ctx) {
  sync(Ctx);
  if (!Calls) {
    Calls = std::make_unique<CallGraph>(MaxSummaryDepth);
    for (const FunctionDecl *FD : userFunctions(Ctx))
      Calls->collect(facts(FD, Ctx), Ctx);
  }
  return *Calls;
}

const SummaryTable &AnalysisCore::summaries(ASTContext &Ctx) {
  sync(Ctx);
  if (!Summaries) {
    auto Table = std::make_unique<SummaryTable>();
    llvm::ArrayRef<const FunctionDecl *> All = userFunctions(Ctx);
    HistoryFunctions &H = history(Ctx);
    Table->build(
        All, Ctx, [&](const FunctionDecl *FD) -> const FunctionFacts & { return facts(FD, Ctx); },
        &H, External.get());
    Summaries = std::move(Table);
  }
  return *Summaries;
}

// ---- across translation units ----------------------------------------------

/// The linked summaries files this process read, by path. Every clang-tidy
/// run has its own core (TorchTidyModule.cpp), and a long-lived process
/// (libtorch-tidy-clangd) runs the checks on every edit, so the file is read
/// once while it stays the same (modification time and size) and read again
/// when `libtorch-tidy summarize` or `--cross-tu` rewrites it. A file that
/// cannot be read or parsed gets its error once per version. Thread-safe:
/// clangd runs the checks of several files at once.
namespace {
class LinkedSummaryFiles {
public:
  /// Fills \p Out with the document at \p Path (a copy: each core keeps
  /// its own); returns the error to report, "" once reported.
  std::string load(llvm::StringRef Path, std::unique_ptr<SummaryDocument> &Out) {
    llvm::sys::fs::file_status Status;
    Stamp Now;
    if (!llvm::sys::fs::status(Path, Status))
      Now = {Status.getLastModificationTime(), Status.getSize(), true};
    std::lock_guard<std::mutex> Lock(Mutex);
    Entry &E = Files[Path];
    if (!E.Read || !(E.At == Now)) {
      E = Entry();
      E.Read = true;
      E.At = Now;
      llvm::Expected<SummaryDocument> Doc = readSummaryFile(Path);
      if (Doc)
        E.Doc = std::make_shared<const SummaryDocument>(std::move(*Doc));
      else
        E.Error = llvm::toString(Doc.takeError());
    }
    if (E.Doc)
      Out = std::make_unique<SummaryDocument>(*E.Doc);
    if (E.Error.empty() || E.Reported)
      return {};
    E.Reported = true;
    return E.Error;
  }

private:
  struct Stamp {
    llvm::sys::TimePoint<> Modified;
    uint64_t Size = 0;
    bool Exists = false;
    bool operator==(const Stamp &O) const {
      return Exists == O.Exists && Modified == O.Modified && Size == O.Size;
    }
  };
  struct Entry {
    bool Read = false;
    Stamp At;
    std::shared_ptr<const SummaryDocument> Doc;
    std::string Error;
    bool Reported = false;
  };
  std::mutex Mutex;
  llvm::StringMap<Entry> Files;
};
} // namespace

std::string AnalysisCore::configure(llvm::StringRef Input, llvm::StringRef Output) {
  OutputPath = Output.str();
  if (Input == InputPath)
    return {};
  InputPath = Input.str();
  External.reset();
  Summaries.reset(); // built with the previous file
  if (Input.empty())
    return {};
  static LinkedSummaryFiles *Files = new LinkedSummaryFiles; // never destroyed: no exit-time order
  std::string Error = Files->load(Input, External);
  if (!Error.empty())
    return "option TorchSummaries: " + Error + "; analysing without summaries of other files";
  return {};
}

const FunctionSummary *AnalysisCore::externalSummary(const FunctionDecl *FD) const {
  if (!FD)
    return nullptr;
  if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->hasBody())
    return nullptr; // defined here: its own summary decides
  std::string USR = usrOf(SummaryTable::key(FD));
  if (USR.empty())
    return nullptr;
  ReadsSummaries.insert(USR);
  return External ? External->lookup(USR) : nullptr;
}

bool AnalysisCore::keepsNoHistoryElsewhere(const FunctionDecl *FD) const {
  if (!FD || (!External && !writesSummaries()))
    return false; // nothing to read, nothing to record
  if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->hasBody())
    return false; // defined here: its own body decides
  std::string USR = usrOf(SummaryTable::key(FD));
  if (USR.empty())
    return false;
  ReadsKeeps.insert(USR);
  const FunctionSummary *S = External ? External->lookup(USR) : nullptr;
  return S && S->KeepsNoHistory;
}

std::string AnalysisCore::askCallers(const FunctionDecl *FD) const {
  std::string USR = FD ? usrOf(SummaryTable::key(FD)) : std::string();
  if (!USR.empty())
    ReadsCallers.insert(USR);
  return USR;
}

bool AnalysisCore::resultReachesBackwardElsewhere(const FunctionDecl *FD) const {
  std::string USR = askCallers(FD);
  return !USR.empty() && External && External->resultReachesBackward(USR);
}

bool AnalysisCore::calledOnlyUnderGuardsElsewhere(const FunctionDecl *FD) const {
  std::string USR = askCallers(FD);
  return !USR.empty() && External && External->calledOnlyUnderGuards(USR);
}

/// A function other translation units may call (so a guard of theirs may
/// cover it): externally visible, not main.
static bool calledFromOtherFiles(const FunctionDecl *FD) {
  return FD && FD->isExternallyVisible() && !FD->isMain();
}

/// The callers' side of the guard: the functions \p Doc's unit calls
/// without defining them, each guarded where every call of it is guarded at
/// the call or by every chain of callers above it (CallGraph's rule),
/// guarded "via" the entry points of the unit's unguarded chains when each
/// of those may be called from other files (the link decides), else
/// unguarded. Virtual dispatch and calls through pointers are not recorded.
static void recordCallGuards(const CallGraph &Graph, const ASTContext &Ctx,
                             SummaryDocument &Doc) {
  for (const CallGraph::Site &S : Graph.sites()) {
    if (S.Virtual)
      continue;
    const FunctionDecl *Ext = externalCallee(S.Call, Ctx);
    std::string USR = Ext ? usrOf(Ext) : std::string();
    if (USR.empty())
      continue;
    if (S.Guarded || Graph.guardedOnEveryPath(S.Caller, DefaultCallDepth)) {
      Doc.CalledGuarded.insert(USR);
      continue;
    }
    std::set<std::string> Entries;
    bool Open = Graph.guardedOnEveryPath(S.Caller, DefaultCallDepth, [&](const FunctionDecl *E) {
      if (!calledFromOtherFiles(E))
        return false;
      std::string EntryUSR = usrOf(SummaryTable::key(E));
      if (EntryUSR.empty())
        return false;
      Entries.insert(std::move(EntryUSR));
      return true;
    });
    if (Open && !Entries.empty())
      Doc.CalledUnguardedVia[USR].insert(Entries.begin(), Entries.end());
    else
      Doc.CalledUnguarded.insert(USR);
  }
  for (const std::string &USR : Doc.CalledUnguarded) {
    Doc.CalledGuarded.erase(USR);
    Doc.CalledUnguardedVia.erase(USR);
  }
}

void AnalysisCore::recordKeepsNoHistory(ASTContext &Ctx, SummaryDocument &Doc) {
  // What other files ask (Escapes.h): only about a call that hands the
  // function a value that may hold a tensor.
  // A template's instantiations share one summary: kept only when each says so.
  std::set<std::string> Seen;
  for (const FunctionDecl *FD : userFunctions(Ctx)) {
    if (!FD->hasBody() || FD->isDependentContext() ||
        llvm::none_of(FD->parameters(), [](const ParmVarDecl *P) { return tensorish(P->getType()); }))
      continue;
    std::string USR = usrOf(SummaryTable::key(FD));
    auto It = Doc.Functions.find(USR);
    if (It == Doc.Functions.end())
      continue;
    bool Keeps = escapes(Ctx).keepsNoHistory(FD, Ctx, DefaultCallDepth);
    bool &Flag = It->second.KeepsNoHistory;
    Flag = Seen.insert(USR).second ? Keeps : Flag && Keeps;
  }
}

std::string AnalysisCore::endTranslationUnit() {
  if (OutputPath.empty())
    return {};
  // Every check ends its part of the unit here: write once per change.
  auto State = std::make_tuple(!Stale && Current, ReadsSummaries.size(), ReadsCallers.size(),
                               ReadsKeeps.size());
  if (Written == State)
    return {};
  Written = State;
  SummaryDocument Doc;
  if (!Stale && Current) {
    Doc = summaries(*Current).document();
    recordKeepsNoHistory(*Current, Doc);
    // Only a unit that calls functions of other files has a callers' side
    // of the guard (the call graph is built for it then).
    if (!Doc.Uses.empty())
      recordCallGuards(calls(*Current), *Current, Doc);
  }
  Doc.ReadsSummaries = ReadsSummaries;
  Doc.ReadsCallers = ReadsCallers;
  Doc.ReadsKeeps = ReadsKeeps;
  if (llvm::Error E = writeSummaryFile(OutputPath, Doc))
    return "option TorchSummariesOutput: " + llvm::toString(std::move(E));
  return {};
}

} // namespace clang::tidy::torch_check
