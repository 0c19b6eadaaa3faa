//===--- FunctionFacts.cpp - libtorch-tidy --------------------------------===//

#include "FunctionFacts.h"
#include "ASTHelpers.h"
#include "Callees.h"
#include "GradGuards.h"
#include "LoopVariables.h"
#include "TorchMembers.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch_check {

// ---- one helper per question ------------------------------------------------

const Expr *stripCopies(const Expr *E) {
  using namespace wrappers;
  return stripWrappers(E, Temporaries | FunctionalCasts | CopiesAndMoves | Dereferences);
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

// ---- facts ------------------------------------------------------------------

namespace {
/// The walk's order and lambda membership (FunctionFacts::Node), shared by
/// the body's walk and the constructor initialisers' (initializerNodes).
/// RecursiveASTVisitor calls VisitStmt before the Visit of the node's own
/// class.
template <typename Derived> class NodeWalk : public RecursiveASTVisitor<Derived> {
public:
  explicit NodeWalk(std::vector<FunctionFacts::Node> &Nodes) : Nodes(Nodes) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseLambdaExpr(LambdaExpr *L) {
    Open.push_back(L);
    bool R = RecursiveASTVisitor<Derived>::TraverseLambdaExpr(L);
    Open.pop_back();
    return R;
  }
  bool VisitStmt(Stmt *S) {
    const LambdaExpr *In = Open.empty() ? nullptr : Open.back();
    if (In == S)
      In = Open.size() > 1 ? Open[Open.size() - 2] : nullptr;
    Nodes.push_back({S, nullptr, In});
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    Nodes.push_back({nullptr, VD, Open.empty() ? nullptr : Open.back()});
    return true;
  }
  /// Every statement the walk traverses is bracketed by these two (children
  /// queued or walked in nested traversals, all before the Post): the node
  /// VisitStmt adds for it is the first after Pre, and its subtree ends at
  /// Post (Node::End).
  bool dataTraverseStmtPre(Stmt *S) {
    Starts.push_back(Nodes.size());
    return true;
  }
  bool dataTraverseStmtPost(Stmt *S) {
    size_t I = Starts.pop_back_val();
    // A braced initialiser in its semantic form is walked in the form
    // written: that form's node is the first (nodeIndex maps one to the
    // other).
    if (I < Nodes.size() && (Nodes[I].S == S || !Nodes[I].End))
      Nodes[I].End = Nodes.size();
    return true;
  }

protected:
  std::vector<FunctionFacts::Node> &Nodes;
  /// The lambdas being walked, innermost last.
  llvm::SmallVector<const LambdaExpr *, 2> Open;
  /// Where the nodes of the statements being traversed start.
  llvm::SmallVector<size_t, 32> Starts;
};

/// The nodes of a constructor's written member initialisers.
class InitializerWalk : public NodeWalk<InitializerWalk> {
public:
  using NodeWalk::NodeWalk;
};

class FactCollector : public NodeWalk<FactCollector> {
public:
  FactCollector(std::vector<Fact> &Facts, std::vector<CallSite> &Calls,
                llvm::SmallPtrSetImpl<const IdentifierInfo *> &Names,
                llvm::SmallVectorImpl<std::pair<const CallExpr *, const FunctionDecl *>> &UserCalls,
                bool &FollowsCalls, std::bitset<NUM_OVERLOADED_OPERATORS> &Operators,
                FunctionFacts::BodyShape &Shape, FunctionFacts::NameIndex &Index, ASTContext &Ctx)
      : NodeWalk(Index.Nodes), Facts(Facts), Calls(Calls), Names(Names), UserCalls(UserCalls),
        FollowsCalls(FollowsCalls), Operators(Operators), Shape(Shape), Index(Index), Ctx(Ctx) {}

  bool TraverseLambdaExpr(LambdaExpr *L) {
    Index.Lambdas.push_back(L);
    return NodeWalk::TraverseLambdaExpr(L);
  }

  bool VisitCXXForRangeStmt(CXXForRangeStmt *For) {
    // `for (auto &p : net->parameters()) p.requires_grad_(false);`
    if (const Expr *Module = parameterLoopModule(For))
      if (std::optional<bool> On = loopSetsRequiresGrad(For)) {
        add(*On ? Fact::ParamsThawed : Fact::ParamsFrozen, For, nullptr, Module);
        Shape.FreezesParameters |= !*On;
      }
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      Index.References[VD].push_back(DRE);
    return true;
  }

  bool VisitDeclStmt(DeclStmt *DS) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        Index.Declarations[VD] = DS;
    return true;
  }

  bool VisitCXXDeleteExpr(CXXDeleteExpr *Delete) {
    add(Fact::Release, Delete, nullptr, Delete->getArgument());
    return true;
  }

  bool VisitMemberExpr(MemberExpr *ME) {
    if (const ValueDecl *Member = ME->getMemberDecl();
        isa<FieldDecl>(Member) || isa<VarDecl>(Member))
      Index.Members[Member].push_back(ME);
    return true;
  }

  bool VisitNamedDecl(NamedDecl *ND) {
    if (ND->getIdentifier())
      Index.Named.push_back(ND);
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    NodeWalk::VisitVarDecl(VD);
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
    Calls.push_back({Construct, !Open.empty()});
    if (const CXXConstructorDecl *Ctor = Construct->getConstructor())
      addName(Ctor->getParent()->getIdentifier());
    if (!Shape.OptimizerConstruction)
      Shape.OptimizerConstruction = isOptimizerConstruction(Construct);
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    Calls.push_back({Call, !Open.empty()});
    addCalleeName(Call);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
      Operators.set(Op->getOperator());
    if (!Shape.OptimizerConstruction)
      Shape.OptimizerConstruction = isOptimizerConstruction(Call);
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
    switch (TrainingCall TC = classifyTrainingCall(Call)) {
    case TrainingCall::Backward:
    case TrainingCall::Grad: {
      const Expr *Obj = memberCallObject(Call);
      if (!Obj && Call->getNumArgs())
        Obj = Call->getArg(0);
      add(TC == TrainingCall::Grad ? Fact::Grad : Fact::Backward, Call, nullptr, Obj);
      return true;
    }
    case TrainingCall::Step:
      add(Fact::Step, Call, nullptr, memberCallObject(Call));
      return true;
    case TrainingCall::OptimizerZeroGrad:
    case TrainingCall::ModuleZeroGrad:
      add(Fact::ZeroGrad, Call, nullptr, memberCallObject(Call));
      return true;
    case TrainingCall::None:
      break;
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
      // `k.index_put_({i}, v)` with a tensor v writes k's storage as
      // `k.index({i}) = v` does.
      if (tensorMethodName(Call) == "index_put_" && Call->getNumArgs() >= 2 &&
          isTensorType(Call->getArg(1)->getType())) {
        add(Fact::IndexedAssign, Call, nullptr, memberCallObject(Call), Call->getArg(1));
        return true;
      }
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
    if (isCFree(Call)) {
      add(Fact::Release, Call, nullptr, Call->getArg(0));
      return true;
    }
    if (isContainerInsertCall(Call)) {
      const Expr *Value = Call->getNumArgs() ? Call->getArg(Call->getNumArgs() - 1) : nullptr;
      add(Fact::ContainerInsert, Call, nullptr, memberCallObject(Call), Value);
      return true;
    }
    if (const FunctionDecl *Def = followableCallee(Call, Ctx)) {
      size_t I = add(Fact::UserCall, Call);
      Facts[I].Callee = patternKey(Def);
      Facts[I].Definition = Def;
    }
    return true;
  }

private:
  /// `free(p)` of the C library (global, or std::free).
  static bool isCFree(const CallExpr *Call) {
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && FD->getDeclName().isIdentifier() && FD->getName() == "free" &&
           Call->getNumArgs() == 1 &&
           (FD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
            FD->isInStdNamespace());
  }

  /// The module whose parameters() (all of them: no `recurse` argument)
  /// \p For runs over; null otherwise.
  static const Expr *parameterLoopModule(const CXXForRangeStmt *For) {
    const auto *Range =
        dyn_cast_or_null<CXXMemberCallExpr>(skipImplicitTemporaries(For->getRangeInit()));
    if (!Range || moduleMethodName(Range) != "parameters" ||
        (Range->getNumArgs() && !isa<CXXDefaultArgExpr>(Range->getArg(0))))
      return nullptr;
    return Range->getImplicitObjectArgument();
  }

  /// The constant a statement of \p For's body (or its body itself) hands
  /// to the loop variable's requires_grad_ / set_requires_grad; none when no
  /// statement does.
  std::optional<bool> loopSetsRequiresGrad(const CXXForRangeStmt *For) const {
    const VarDecl *Param = For->getLoopVariable();
    const Stmt *Body = For->getBody();
    llvm::ArrayRef<Stmt *> Statements;
    Stmt *Single = const_cast<Stmt *>(Body);
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(Body))
      Statements = llvm::ArrayRef(Block->body_begin(), Block->body_end());
    else if (Body)
      Statements = llvm::ArrayRef(&Single, 1);
    std::optional<bool> Result;
    for (const Stmt *S : Statements) {
      const auto *Call =
          dyn_cast_or_null<CXXMemberCallExpr>(skipImplicitTemporaries(dyn_cast_or_null<Expr>(S)));
      if (!Call || Call->getNumArgs() != 1 ||
          namedVariable(Call->getImplicitObjectArgument()) != Param)
        continue;
      const CXXMethodDecl *MD = Call->getMethodDecl();
      if (!MD || !MD->getIdentifier() ||
          (MD->getName() != "requires_grad_" && MD->getName() != "set_requires_grad"))
        continue;
      const Expr *Arg = Call->getArg(0);
      std::optional<bool> On = isa<CXXDefaultArgExpr>(Arg) ? std::nullopt : knownBool(Arg, Ctx);
      if (!On)
        return std::nullopt; // not a constant: unknown
      Result = On;
    }
    return Result;
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
    F.InLambda = !Open.empty();
    Facts.push_back(F);
    return Facts.size() - 1;
  }

  std::vector<Fact> &Facts;
  std::vector<CallSite> &Calls;
  llvm::SmallPtrSetImpl<const IdentifierInfo *> &Names;
  llvm::SmallVectorImpl<std::pair<const CallExpr *, const FunctionDecl *>> &UserCalls;
  bool &FollowsCalls;
  std::bitset<NUM_OVERLOADED_OPERATORS> &Operators;
  FunctionFacts::BodyShape &Shape;
  FunctionFacts::NameIndex &Index;
  ASTContext &Ctx;
};
} // namespace

FunctionFacts::FunctionFacts(const FunctionDecl *FD, ASTContext &Ctx)
    : FD(FD), Body(FD ? FD->getBody() : nullptr), Ctx(Ctx) {
  if (Body)
    FactCollector(Facts, Calls, CalleeNames, UserFunctionCalls, FollowsCalls, Operators, Shape,
                  Names, Ctx)
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

llvm::ArrayRef<FunctionFacts::Node> FunctionFacts::initializerNodes() const {
  if (!Initializers) {
    Initializers = std::make_unique<std::vector<Node>>();
    if (const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getInit())
          InitializerWalk(*Initializers).TraverseStmt(Init->getInit());
  }
  return *Initializers;
}

std::optional<unsigned> FunctionFacts::nodeIndex(const Stmt *S) const {
  if (!NodeIndex) {
    NodeIndex = std::make_unique<llvm::DenseMap<const Stmt *, unsigned>>();
    NodeIndex->reserve(Names.Nodes.size());
    for (unsigned I = 0, E = Names.Nodes.size(); I < E; ++I)
      if (const Node &N = Names.Nodes[I]; N.S && N.End)
        NodeIndex->try_emplace(N.S, I); // the first meeting: its whole subtree
  }
  // The walk meets a braced initialiser in the form written.
  if (const auto *Init = dyn_cast_or_null<InitListExpr>(S);
      Init && Init->isSemanticForm() && Init->getSyntacticForm())
    S = Init->getSyntacticForm();
  auto It = NodeIndex->find(S);
  return It == NodeIndex->end() ? std::nullopt : std::optional<unsigned>(It->second);
}

const ParentMap &FunctionFacts::parents() const {
  if (!PM)
    PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
  return *PM;
}

const ExecutionOrder &FunctionFacts::order() const {
  if (!Order)
    Order = std::make_unique<ExecutionOrder>(FD, Body, Ctx, parents()); // one parent map per body
  return *Order;
}

const DefUse &FunctionFacts::defUse() const {
  if (Defs)
    return *Defs;
  Defs = std::make_unique<DefUse>();
  DefUse::Recorder Record(*Defs);
  for (const Node &N : Names.Nodes) {
    if (N.Var)
      Record.variable(N.Var);
    else
      Record.statement(N.S);
  }
  return *Defs;
}

bool FunctionFacts::runsFrozen(const Stmt *Call) const {
  if (!Call || !Shape.FreezesParameters)
    return false;
  // The module: a forward pass's, or the object of a member call.
  const auto *CE = dyn_cast<CallExpr>(Call);
  const Expr *Object = nullptr;
  if (CE && isForwardCall(CE))
    Object = forwardCallObject(CE);
  else if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(CE))
    Object = MC->getImplicitObjectArgument();
  const ValueDecl *Module = Object ? storageVariable(Object) : nullptr;
  if (!Module)
    return false;
  auto Site = llvm::find_if(Calls, [&](const CallSite &C) { return C.E == CE; });
  if (Site == Calls.end())
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  const Fact *Last = nullptr; // the facts are in source order: the last one before wins
  for (const Fact &F : Facts)
    if ((F.K == Fact::ParamsFrozen || F.K == Fact::ParamsThawed) && F.ObjectDecl == Module &&
        F.InLambda == Site->InLambda && expandedBefore(F.S->getEndLoc(), Call->getBeginLoc(), SM))
      Last = &F;
  return Last && Last->K == Fact::ParamsFrozen;
}

bool FunctionFacts::isGuarded(const Stmt *S) const {
  if (!Guards)
    Guards = std::make_unique<GradGuardCache>(parents(), Ctx);
  return Guards->isDisabledAt(S);
}

// ---- lambdas the body runs --------------------------------------------------

namespace {

/// The standard algorithms and utilities that call the callable they are
/// given before they return.
bool callsItsCallable(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->isInStdNamespace() || !FD->getIdentifier())
    return false;
  static constexpr llvm::StringLiteral Names[] = {
      "for_each",    "for_each_n",  "transform",        "generate",         "generate_n",
      "accumulate",  "reduce",      "transform_reduce", "inner_product",    "all_of",
      "any_of",      "none_of",     "count_if",         "find_if",          "find_if_not",
      "remove_if",   "copy_if",     "partition",        "stable_partition", "sort",
      "stable_sort", "max_element", "min_element",      "minmax_element",   "invoke",
      "call_once",   "apply"};
  return llvm::is_contained(Names, FD->getName());
}

/// The expression \p E stands in: its parent past parentheses, implicit
/// conversions, temporaries and the one-argument constructions that wrap a
/// callable (std::function); \p Child is set to the wrapper the parent holds.
const Stmt *userOf(const Expr *E, const ParentMap &PM, const Stmt *&Child) {
  Child = E;
  const Stmt *P = PM.getParent(E);
  while (P && (isa<ParenExpr, ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
                   ExprWithCleanups, CXXFunctionalCastExpr>(P) ||
               (isa<CXXConstructExpr>(P) && cast<CXXConstructExpr>(P)->getNumArgs() == 1))) {
    Child = P;
    P = PM.getParent(P);
  }
  return P;
}

} // namespace

bool FunctionFacts::runsInBody(const Stmt *S) const {
  const ParentMap &PM = parents();
  for (const Stmt *Child = S, *P = PM.getParent(S); P; Child = P, P = PM.getParent(P))
    if (const auto *L = dyn_cast<LambdaExpr>(P); L && Child == L->getBody() && !runsLambda(L))
      return false;
  return true;
}

bool FunctionFacts::runsLambda(const LambdaExpr *L) const {
  if (auto It = RunLambdas.find(L); It != RunLambdas.end())
    return It->second;
  const ParentMap &PM = parents();
  // A use of the lambda (or of the variable it initialises) that runs it.
  auto Runs = [&](const Expr *Use) {
    const Stmt *Child = nullptr;
    const Stmt *P = userOf(Use, PM, Child);
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P))
      return Op->getOperator() == OO_Call && Op->getArg(0) == Child;
    if (const auto *Call = dyn_cast_or_null<CallExpr>(P))
      return llvm::is_contained(Call->arguments(), Child) &&
             (factFor(Call, Fact::Step) || callsItsCallable(Call));
    return false;
  };
  bool Result = Runs(L);
  const Stmt *Child = nullptr;
  if (!Result)
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(userOf(L, PM, Child)); DS && DS->isSingleDecl())
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
          VD && VD->isLocalVarDecl() && !VD->isStaticLocal() && VD->getInit() == Child &&
          !VD->getType()->isReferenceType())
        Result = anyStmt(Body, [&](const Stmt *X) {
          const auto *Ref = dyn_cast<DeclRefExpr>(X);
          return Ref && Ref->getDecl() == VD && Runs(Ref);
        });
  RunLambdas[L] = Result;
  return Result;
}

} // namespace clang::tidy::torch_check
