//===--- UnneededRetainGraphCheck.cpp - libtorch-tidy ---------------------===//

#include "UnneededRetainGraphCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/ASTHelpers.h"
#include "utils/CallFacts.h"
#include "utils/DefUse.h"
#include "utils/ExecutionOrder.h"
#include "utils/History.h"
#include "utils/LoopVariables.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// The positions of the arguments of a backward call.
struct BackwardShape {
  const Expr *Root = nullptr; ///< the tensor(s) the backward pass starts from
  int Grad = -1;              ///< gradient / grad_tensors
  int Retain = -1;            ///< retain_graph
  int Create = -1;            ///< create_graph
};

BackwardShape backwardShape(const CallExpr *Call) {
  BackwardShape Shape;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    Shape.Root = MC->getImplicitObjectArgument();
    Shape.Grad = 0;
    Shape.Retain = 1;
    Shape.Create = 2;
  } else if (isNamed(Call->getDirectCallee(), names::AutogradBackward) && Call->getNumArgs() >= 1) {
    Shape.Root = Call->getArg(0);
    Shape.Grad = 1;
    Shape.Retain = 2;
    Shape.Create = 3;
  } else if (isNamed(Call->getDirectCallee(), names::AutogradGrad) && Call->getNumArgs() >= 2) {
    // grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
    Shape.Root = Call->getArg(0);
    Shape.Grad = 2;
    Shape.Retain = 3;
    Shape.Create = 4;
  }
  if (Shape.Create >= 0 && static_cast<unsigned>(Shape.Create) >= Call->getNumArgs())
    Shape.Root = nullptr;
  return Shape;
}

/// The value inside optional<bool>(...) conversions and temporaries (a
/// defaulted argument of a conversion stays the conversion's).
const Expr *unwrapScalar(const Expr *E) {
  using namespace wrappers;
  const Expr *Value = stripWrappers(E, Temporaries | FunctionalCasts | Constructions);
  return isa<CXXDefaultArgExpr>(Value) ? E : Value;
}

/// 1 for a constant true, 0 for a constant false, -1 otherwise.
int constantBool(const Expr *Arg, const ASTContext &Ctx) {
  const Expr *E = unwrapScalar(Arg);
  if (E->isValueDependent() || !(E->getType()->isBooleanType() || E->getType()->isIntegerType()))
    return -1;
  bool Value = false;
  if (!E->EvaluateAsBooleanCondition(Value, Ctx))
    return -1;
  return Value ? 1 : 0;
}

/// `{}`, `torch::Tensor()`, `variable_list{}`: an argument that spells the default.
bool isEmptyValue(const Expr *Arg) {
  const Expr *E = Arg->IgnoreImplicit()->IgnoreParens();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0;
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    return Init->getNumInits() == 0;
  return false;
}

/// Tensors and values that may hold them.
bool isTensorish(QualType T) { return mayHoldTensor(T); }

/// True when \p S runs on every pass through \p LoopBody (the fallback for
/// a code body without a CFG): no condition (CallFacts.h's
/// isConditionalWithin), inner loop or lambda lies between them.
bool runsEveryIteration(const Stmt *S, const Stmt *LoopBody, const ParentMap &PM) {
  return !isConditionalWithin(S, LoopBody, PM) && !enclosingLoop(S, PM, LoopBody) &&
         enclosingCodeBody(S, PM, LoopBody) == LoopBody;
}

/// The condition a loop passes on the way to its next iteration; null for
/// `for (;;)`.
const Expr *loopCondition(const Stmt *Loop) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return For->getCond();
  if (const auto *While = dyn_cast<WhileStmt>(Loop))
    return While->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Do->getCond();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Range->getCond();
  return nullptr;
}

/// A call of the runtime companion (LIBTORCH_TIDY_ITERATION(loss) and the
/// like): it only reads the tensors it is given.
bool isRuntimeCompanionCall(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  for (const DeclContext *DC = FD ? FD->getDeclContext() : nullptr; DC; DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (NS->getIdentifier() && NS->getName() == names::RuntimeNamespace)
        return true;
  }
  return false;
}

bool mayKeepGraphState(const CXXRecordDecl *RD, unsigned Depth = 0, bool Unknown = true);

/// The module object of a call of a method of the user's module class
/// (`actor->sampleNormal(s)`, `net.encode(x)`), operator-> stripped; null
/// for any other call (forward passes included).
const Expr *userModuleMethodObject(const CallExpr *Call) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  if (!MD || isForwardCall(Call) || !isModuleClass(MD->getParent()) ||
      isInLibraryNamespace(MD->getParent()))
    return nullptr;
  const Expr *Object = MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs() == 1)
    Object = Arrow->getArg(0)->IgnoreParenImpCasts();
  return Object;
}

/// A call whose result cannot hold a tensor nor carry one in: a number, an
/// enumerator, or a LibTorch value that is not a tensor (`const
/// torch::TensorOptions &options()`, a device). A call of the user's code
/// that yields one brings no graph into the expression.
bool yieldsNoTensor(const CallExpr *Call) {
  QualType T = Call->getType().getNonReferenceType();
  if (T.isNull() || isTensorish(T) || T->isVoidType())
    return false;
  if (T->isScalarType() || T->isEnumeralType())
    return !T->isPointerType();
  const CXXRecordDecl *RD = classOf(T);
  return RD && isInLibraryNamespace(RD) && !isAnyModuleLike(RD);
}

/// The variables an expression reads and whether it reads something whose
/// graph may come from outside the current iteration: a view over the
/// expression's nodes in the function's walk (FunctionFacts::nodes), pruned
/// where autograd history is cut.
struct ClosureReads {
  llvm::SmallVector<const VarDecl *, 8> Vars;
  /// Where each of Vars is read (the same order).
  llvm::SmallVector<const DeclRefExpr *, 8> Sites;
  bool ReadsThisTensor = false; ///< a tensor member, or a tensor from a method of this
  bool CallsForward = false;
  bool CallsUser = false;
  bool CallsOtherUserCode = false; ///< a call of the user's code that is not a forward pass
  /// The modules whose forward pass the expression runs (a variable or a data
  /// member); UnnamedModule when one is not a plain name.
  llvm::SmallVector<const ValueDecl *, 4> Modules;
  bool UnnamedModule = false;
  /// An expression the walk did not meet (not a node of the body): it may
  /// read anything, and the flags above say so.
  bool Unknown = false;

  /// Adds what \p E reads. \p UserCalls: the calls of the user's functions
  /// in the body (the core's facts), or null when calls do not matter.
  void read(const FunctionFacts &Facts, const Expr *E,
            const llvm::SmallPtrSetImpl<const CallExpr *> *UserCalls) {
    std::optional<unsigned> First = Facts.nodeIndex(E);
    if (!First) {
      Unknown = ReadsThisTensor = CallsForward = CallsUser = CallsOtherUserCode = true;
      UnnamedModule = true;
      return;
    }
    llvm::ArrayRef<FunctionFacts::Node> Nodes = Facts.nodes();
    for (unsigned I = *First, End = Nodes[*First].End; I < End;) {
      const FunctionFacts::Node &N = Nodes[I];
      // `t.detach()`, `t.item()`, `t.argmax(1)`, comparisons, integral
      // conversions: what they read carries no graph into the result.
      // Backward and grad calls are not cuts here (grad with create_graph
      // returns graphs).
      if (const auto *X = dyn_cast_or_null<Expr>(N.S);
          X && N.End > I && cutsHistory(X) &&
          !isBackwardOrGradCall(dyn_cast<CallExpr>(X->IgnoreParenImpCasts()))) {
        I = N.End;
        continue;
      }
      if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(N.S))
        visit(DRE);
      else if (const auto *ME = dyn_cast_or_null<MemberExpr>(N.S))
        visit(ME);
      else if (const auto *Call = dyn_cast_or_null<CallExpr>(N.S))
        visit(Call, UserCalls);
      ++I;
    }
  }

private:
  void visit(const DeclRefExpr *DRE) {
    if (const VarDecl *VD = DefUse::variableNamed(DRE)) {
      Vars.push_back(VD);
      Sites.push_back(DRE);
    }
  }
  void visit(const MemberExpr *ME) {
    if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()) && isTensorish(ME->getType()) &&
        !isa<CXXMethodDecl>(ME->getMemberDecl()))
      ReadsThisTensor = true;
  }
  void visit(const CallExpr *Call, const llvm::SmallPtrSetImpl<const CallExpr *> *UserCalls) {
    // A method of the user's module class (`actor->sampleNormal(s)`) is a
    // forward pass of that module by another name: what it may keep is the
    // module's state.
    const Expr *MethodObject = userModuleMethodObject(Call);
    if (isForwardCall(Call) || MethodObject) {
      CallsForward = true;
      const Expr *Object = MethodObject ? MethodObject : forwardCallObject(Call);
      const ValueDecl *Module = nullptr;
      if (Object) {
        Object = Object->IgnoreParenImpCasts();
        if (const auto *DRE = dyn_cast<DeclRefExpr>(Object))
          Module = DRE->getDecl();
        else if (const auto *ME = dyn_cast<MemberExpr>(Object);
                 ME && isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
          Module = ME->getMemberDecl();
      }
      if (Module)
        Modules.push_back(Module);
      else if (const CXXRecordDecl *RD = Object ? classOf(Object->getType(), true) : nullptr;
               !RD || mayKeepGraphState(RD))
        // A module reached through a call (`agent->model->get()`): which one
        // is unknown, so only its class can say it keeps nothing.
        UnnamedModule = true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (isa<CXXThisExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts()) &&
          isTensorish(Call->getType()))
        ReadsThisTensor = true;
    if (UserCalls && UserCalls->contains(Call) && !yieldsNoTensor(Call)) {
      CallsUser = true;
      CallsOtherUserCode |= !isForwardCall(Call) && !MethodObject;
    }
  }
};

/// The module class behind \p RD: the Impl of a TORCH_MODULE holder
/// (ModuleHolder<Impl>), else \p RD.
const CXXRecordDecl *moduleImpl(const CXXRecordDecl *RD) {
  for (int Depth = 0; RD && Depth < 4; ++Depth) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (Spec && isNamed(Spec->getSpecializedTemplate()->getTemplatedDecl(), names::ModuleHolder)) {
      const TemplateArgumentList &Args = Spec->getTemplateArgs();
      return Args.size() >= 1 && Args[0].getKind() == TemplateArgument::Type
                 ? classOf(Args[0].getAsType())
                 : nullptr;
    }
    // Only a holder (TORCH_MODULE's class, derived from ModuleHolder<Impl>)
    // leads to its Impl; an Impl class is the module itself, not its base
    // torch::nn::Module.
    if (!RD->hasDefinition() || RD->getNumBases() != 1 || !isModuleHolderClass(RD))
      return RD;
    RD = classOf(RD->bases_begin()->getType());
  }
  return RD;
}

/// True when \p S assigns or changes a tensor data member of \p RD
/// (`hidden_ = out;`, `state_.add_(x)`, `history_.push_back(y)`).
bool changesTensorMember(const Stmt *Root, const CXXRecordDecl *RD) {
  auto IsMember = [&](const Expr *E) {
    const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
    const auto *Field = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    return Field && Field->getParent() == RD && isTensorish(Field->getType());
  };
  return anyStmt(Root, [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp() && IsMember(BO->getLHS()))
      return true;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2 && IsMember(Op->getArg(0)))
      return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && !MD->isConst() && IsMember(MC->getImplicitObjectArgument()))
        return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && MD->getIdentifier() && MD->getName().ends_with("_") &&
          IsMember(MC->getImplicitObjectArgument()))
        return true;
    return false;
  });
}

/// True when \p RD has a data member that may hold a tensor (a tensor, a
/// container or tuple of tensors).
bool hasTensorStorage(const CXXRecordDecl *RD) {
  return llvm::any_of(RD->fields(), [](const FieldDecl *Field) { return isTensorish(Field->getType()); });
}

/// True when a forward pass of \p Module may link one call's graph to the
/// next: a user module class that keeps a tensor between calls (a hidden
/// state member assigned in a method), that has a method defined elsewhere
/// and a data member that may hold a tensor, or holds such a submodule. LibTorch's own modules (Linear, Sequential,
/// LSTM...) keep no graph between calls.
/// With \p Unknown false, a method defined elsewhere does not count: true only
/// when a tensor member is seen changing. Fields and bases are followed at most
/// four classes down (\p Depth): a bounded recursion.
bool mayKeepGraphState(const CXXRecordDecl *RD, unsigned Depth, bool Unknown) {
  RD = moduleImpl(RD);
  if (!RD || Depth > 4)
    return Unknown;
  if (isInLibraryNamespace(RD))
    return false;
  if (!RD->hasDefinition())
    return Unknown;
  RD = RD->getDefinition();
  for (const CXXMethodDecl *MD : RD->methods()) {
    if (MD->isImplicit() || isa<CXXConstructorDecl, CXXDestructorDecl>(MD) || MD->isDeleted() ||
        MD->isDefaulted())
      continue;
    const FunctionDecl *Def = MD->getDefinition();
    if (!Def || !Def->hasBody()) {
      // Defined elsewhere: it can keep a graph between calls only in a data
      // member that may hold a tensor (a hidden state, a cached output).
      if (Unknown && hasTensorStorage(RD))
        return true;
      continue;
    }
    if (changesTensorMember(Def->getBody(), RD))
      return true;
  }
  for (const FieldDecl *Field : RD->fields())
    if (const CXXRecordDecl *FieldClass = classOf(Field->getType(), true);
        FieldClass && isAnyModuleLike(FieldClass) &&
        mayKeepGraphState(FieldClass, Depth + 1, Unknown))
      return true;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (const CXXRecordDecl *BaseClass = classOf(Base.getType());
        BaseClass && !isInLibraryNamespace(BaseClass) &&
        mayKeepGraphState(BaseClass, Depth + 1, Unknown))
      return true;
  return false;
}

/// \p Target, written, is storage that outlives the call: a data member, a
/// global or static, a reference or pointer variable, `*p`, `f()`.
bool outlivesCall(const Expr *Target) {
  const ValueDecl *Storage = storageOf(Target);
  if (!Storage)
    return !isa<DeclRefExpr>(Target->IgnoreParenImpCasts()); // `*p = v`, `f() = v`
  const auto *VD = dyn_cast<VarDecl>(Storage);
  if (!VD)
    return true; // a data member
  return VD->hasGlobalStorage() || VD->getType()->isReferenceType() ||
         VD->getType()->isPointerType();
}

/// Where a value leaves the function, read from the facts' nodes (lambdas
/// included): a `return`, or a store into storage that outlives the call
/// (`kept_ = loss`, `out = loss`, `history_.push_back(loss)`,
/// `member_.add_(loss)`). Each with the statement and the value that leaves,
/// in the walk's order.
llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4>
valuesLeaving(const FunctionFacts &Facts) {
  llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4> Result;
  for (const FunctionFacts::Node &N : Facts.nodes()) {
    if (!N.S)
      continue;
    if (const auto *Return = dyn_cast<ReturnStmt>(N.S)) {
      if (const Expr *Value = Return->getRetValue())
        Result.push_back({Return, Value});
    } else if (const auto *BO = dyn_cast<BinaryOperator>(N.S)) {
      if (BO->isAssignmentOp() && outlivesCall(BO->getLHS()))
        Result.push_back({BO, BO->getRHS()});
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(N.S)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2 && outlivesCall(Op->getArg(0)))
        Result.push_back({Op, Op->getArg(1)});
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(N.S)) {
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && !MD->isConst() && isTensorish(MC->getImplicitObjectArgument()->getType()) &&
          outlivesCall(MC->getImplicitObjectArgument()))
        for (const Expr *Arg : MC->arguments())
          Result.push_back({MC, Arg});
    }
  }
  return Result;
}

/// The tensors a backward pass reads, followed back through the variables
/// their values come from, and whether one of them may hold a graph from
/// outside the current iteration (or call).
struct Closure {
  bool Outside = false;
  llvm::SmallPtrSet<const VarDecl *, 16> Tensors;  ///< every tensor read
  llvm::SmallPtrSet<const VarDecl *, 16> Fresh;    ///< outside, graph-free factories
  llvm::SmallPtrSet<const ValueDecl *, 4> Modules; ///< modules whose forward it runs
  bool UnnamedModule = false;
  bool CallsUser = false; ///< a call of the user's code (not a forward pass)
  /// Where the walk read each of Tensors (DeclRefExprs).
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const Expr *, 4>> Sites;

  llvm::ArrayRef<const Expr *> sitesOf(const VarDecl *VD) const {
    auto It = Sites.find(VD);
    return It == Sites.end() ? llvm::ArrayRef<const Expr *>() : llvm::ArrayRef<const Expr *>(It->second);
  }
};

/// Where values leave the body (valuesLeaving), with the variables each
/// one reads, and the variables the sources of each variable read.
struct Escapes {
  struct Site {
    const Stmt *S;
    llvm::SmallVector<const VarDecl *, 4> Reads;
    bool ReadsAny; ///< what it reads is unknown (ClosureReads::Unknown)
  };
  llvm::SmallVector<Site, 4> Sites;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<const VarDecl *, 4>> SourcesRead;
  /// The variables a source of which reads what is unknown.
  llvm::SmallPtrSet<const VarDecl *, 4> SourcesReadAny;
};

/// The tensor(s) a backward pass starts from, whatever its arguments.
const Expr *rootOf(const CallExpr *Call) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    return MC->getImplicitObjectArgument();
  return Call->getNumArgs() >= 1 ? Call->getArg(0) : nullptr;
}

/// The questions the check asks about one function body, answered from the
/// core's facts (FunctionFacts: backward passes, calls of the user's code,
/// DefUse's sources, the CFG's ExecutionOrder). The steps, in the order
/// checkFunction asks them:
///   1. closureOf: where the retained root's graph comes from;
///   2. laterBackwardReaches: whether a backward pass that may run after it
///      shares a node with that graph (sharesGraph, linksThrough);
///   3. handedOn: whether a later call of the user's code gets the graph;
///   4. leavesFunction: whether the graph leaves the function after it.
class RetainGraphAnalysis {
public:
  RetainGraphAnalysis(const FunctionFacts &Shared, const Stmt *Body, const SourceManager &SM)
      : Shared(Shared), F(Shared.defUse()), PM(Shared.parents()), Order(Shared.order()), SM(SM),
        Body(Body) {
    for (const Fact &Backward : Shared.all())
      if (Backward.K == Fact::Backward || Backward.K == Fact::Grad)
        Backwards.push_back(cast<CallExpr>(Backward.S));
    for (const auto &[Call, Callee] : Shared.userFunctionCalls())
      UserCalls.insert(Call);
  }

  /// False when nothing can go through the graph that \p Call (a backward
  /// pass from \p Root) retains after it.
  bool mayBeNeeded(const CallExpr *Call, const Expr *Root) {
    Closure Own = closureOf(Root, Call);
    if (Own.Outside)
      return true;
    // A module seen keeping a tensor between calls (a hidden state member):
    // the next forward pass, and its backward, go back into this graph.
    if (llvm::any_of(Own.Modules, [](const ValueDecl *M) {
          return mayKeepGraphState(classOf(M->getType(), true), 0, /*Unknown=*/false);
        }))
      return true;
    return laterBackwardReaches(Call, Own) || handedOn(Call, Own) || leavesFunction(Call, Own);
  }

  /// \p Call runs in a loop of its code body.
  bool inLoop(const CallExpr *Call) const {
    return enclosingLoop(Call, PM, enclosingCodeBody(Call, PM, Body)) != nullptr;
  }

private:
  enum class Origin { Follow, Done, Outside };

  bool before(const Stmt *A, const Stmt *B) const { return startsBefore(A, B, SM); }
  /// The CFG of one code body (the function's or a lambda's) places both
  /// statements: order questions about them go to it. Others (a statement
  /// in a lambda and one outside it, a body without a CFG) fall back to
  /// source order.
  bool ordered(const Stmt *A, const Stmt *B) const { return Order.canOrder(A, B); }
  /// The CFG of a code body places \p S.
  bool ordered(const Stmt *S) const { return Order.canOrder(S, S); }
  bool within(SourceLocation Loc, const Stmt *Scope) const {
    Loc = SM.getExpansionLoc(Loc);
    return SM.isPointWithin(Loc, SM.getExpansionLoc(compat::beginLoc(Scope)),
                            SM.getExpansionLoc(Scope->getEndLoc()));
  }
  bool inLambda(const Stmt *S) const { return enclosingCodeBody(S, PM, Body) != Body; }
  ClosureReads walk(const Expr *E) const {
    ClosureReads W;
    W.read(Shared, E, &UserCalls);
    return W;
  }
  bool readsItself(const VarDecl *VD, const Expr *Rhs) const {
    ClosureReads Reads = walk(Rhs);
    return llvm::is_contained(Reads.Vars, VD) || Reads.ReadsThisTensor;
  }

  Closure closureOf(const Expr *Root, const CallExpr *At);
  Origin originOf(const VarDecl *VD, const CallExpr *At, Closure &C,
                  llvm::function_ref<void(const Expr *)> Push);
  const Stmt *iterationStart(const VarDecl *VD, const CallExpr *At, const Stmt *Loop);
  bool freshFactory(const VarDecl *VD) const;
  llvm::SmallVector<const Expr *, 4> reachingSources(const VarDecl *VD, const Expr *Site);
  const llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4> &killPoints(const VarDecl *VD);
  bool graphFree(const VarDecl *Asked);
  bool distinctValues(const VarDecl *VD, llvm::ArrayRef<const Expr *> OwnSites,
                      llvm::ArrayRef<const Expr *> TheirSites);
  bool apartInIterations(const VarDecl *VD, const CallExpr *Call, const Stmt *Later) const;
  bool linksThrough(const VarDecl *VD, const Closure &Own, llvm::ArrayRef<const Expr *> TheirSites,
                    const CallExpr *Call, const Stmt *Later);
  bool sharesStatefulModule(const Closure &Own, const Closure &Theirs) const;
  bool laterBackwardReaches(const CallExpr *Call, const Closure &Own);
  bool handedOn(const CallExpr *Call, const Closure &Own);
  bool leavesFunction(const CallExpr *Call, const Closure &Own);
  const Escapes &escapes();

  const FunctionFacts &Shared;
  const DefUse &F;
  const ParentMap &PM;
  const ExecutionOrder &Order;
  const SourceManager &SM;
  const Stmt *Body;
  llvm::SmallVector<const CallExpr *, 4> Backwards;
  llvm::SmallPtrSet<const CallExpr *, 8> UserCalls;
  llvm::DenseMap<const VarDecl *, bool> GraphFreeMemo;
  llvm::DenseMap<const VarDecl *, llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4>> Kills;
  std::optional<Escapes> Leaving;
};

/// Step 1. The tensors a backward pass at \p At starting from \p Root reads:
/// every tensor the root is computed from must be declared in the current
/// iteration (or call), or declared outside it from LibTorch factories and
/// never modified, or reassigned as a whole on every iteration before \p At
/// (originOf). A variable declared in the iteration is followed through the
/// values that may reach the place it is read (reachingSources), not through
/// every value it ever holds.
Closure RetainGraphAnalysis::closureOf(const Expr *Root, const CallExpr *At) {
  Closure C;
  llvm::DenseMap<const VarDecl *, Origin> Seen;
  llvm::SmallPtrSet<const Expr *, 16> Pushed;
  llvm::SmallVector<const Expr *, 16> Work{Root};
  auto Push = [&](const Expr *E) {
    if (Pushed.insert(E).second)
      Work.push_back(E);
  };
  while (!Work.empty() && !C.Outside) {
    ClosureReads W = walk(Work.pop_back_val());
    if (W.ReadsThisTensor) {
      C.Outside = true;
      break;
    }
    C.Modules.insert(W.Modules.begin(), W.Modules.end());
    C.UnnamedModule |= W.UnnamedModule;
    C.CallsUser |= W.CallsOtherUserCode;
    for (size_t I = 0; I < W.Vars.size() && !C.Outside; ++I) {
      const VarDecl *VD = W.Vars[I];
      if (!isTensorish(VD->getType()) && !F.isRangeVariable(VD))
        continue;
      C.Sites[VD].push_back(W.Sites[I]);
      auto [It, New] = Seen.try_emplace(VD, Origin::Done);
      if (New) {
        C.Tensors.insert(VD);
        It->second = originOf(VD, At, C, Push);
      }
      if (It->second == Origin::Follow)
        for (const Expr *Src : reachingSources(VD, W.Sites[I]))
          Push(Src);
    }
  }
  return C;
}

/// Where the value of \p VD, read by the closure of a backward pass at \p At,
/// comes from: Follow its sources (declared anew on every iteration, or in
/// the function outside loops), Done (its values are pushed, or it holds no
/// graph), or Outside (it may hold a graph from outside the iteration; also
/// sets C.Outside).
RetainGraphAnalysis::Origin RetainGraphAnalysis::originOf(const VarDecl *VD, const CallExpr *At,
                                                          Closure &C,
                                                          llvm::function_ref<void(const Expr *)> Push) {
  const Stmt *CodeBody = enclosingCodeBody(At, PM, Body);
  const Stmt *Loop = enclosingLoop(At, PM, CodeBody);
  const bool Local = VD->isLocalVarDecl() && !VD->isStaticLocal();
  // Declared anew on every iteration: in the loop body, or the variable of
  // a range-for (not the init statement of a for loop, which runs once).
  const auto *RF = dyn_cast_or_null<CXXForRangeStmt>(Loop);
  const bool PerIteration = Loop ? within(VD->getLocation(), loopBody(Loop)) ||
                                       (RF && RF->getLoopVariable() == VD)
                                 : within(VD->getLocation(), CodeBody);
  if (Local && PerIteration) {
    if (!F.isRangeVariable(VD))
      return Origin::Follow;
    if (const Expr *Range = F.rangeOf(VD))
      Push(Range);
    return Origin::Done;
  }
  // Declared outside the loop but reassigned as a whole on every iteration
  // before the backward pass: the values it gets from that assignment on.
  if (Local && Loop && !F.isOpaquelyModified(VD) && !F.isRangeVariable(VD))
    if (const Stmt *First = iterationStart(VD, At, Loop)) {
      for (const Expr *Src : F.sources(VD))
        if (within(compat::beginLoc(Src), Loop) && (ordered(First) || !before(Src, First)))
          Push(Src);
      return Origin::Done;
    }
  // Declared outside: only a tensor made fresh by a factory, or computed by
  // LibTorch operations from values without a graph (`t_adv = t_ret -
  // t_values` of detached tensors), and never modified carries no graph.
  if (Local && (freshFactory(VD) || (!F.isModified(VD) && graphFree(VD)))) {
    C.Fresh.insert(VD);
    return Origin::Done;
  }
  C.Outside = true;
  return Origin::Outside;
}

/// The assignment that starts \p VD (declared outside \p Loop) afresh on
/// every iteration before \p At, from values that do not read it
/// (`loss = loss_fn(model(x), y);`, `loss = torch::zeros({});` then
/// `loss += part;`), every other modification in the loop coming after it;
/// null when there is none. From the CFG, one that dominates \p At and those
/// modifications (the CFG of the code body holding \p At, a lambda's
/// included); in a body without a CFG, the first in source order that no
/// branch skips and that no modification in the loop precedes.
const Stmt *RetainGraphAnalysis::iterationStart(const VarDecl *VD, const CallExpr *At,
                                                const Stmt *Loop) {
  if (ordered(At)) {
    for (const auto &[Assign, Rhs] : F.assignments(VD)) {
      if (!within(compat::beginLoc(Assign), loopBody(Loop)) || !Order.dominates(Assign, At) ||
          readsItself(VD, Rhs))
        continue;
      if (llvm::all_of(F.modificationSites(VD), [&](const Stmt *Site) {
            return Site == Assign || !within(compat::beginLoc(Site), Loop) ||
                   Order.dominates(Assign, Site);
          }))
        return Assign;
    }
    return nullptr;
  }
  const Stmt *First = nullptr;
  for (const auto &[Assign, Rhs] : F.assignments(VD)) {
    if (!within(compat::beginLoc(Assign), loopBody(Loop)) || !before(Assign, At) ||
        !runsEveryIteration(Assign, loopBody(Loop), PM) || readsItself(VD, Rhs))
      continue;
    if (!First || before(Assign, First))
      First = Assign;
  }
  if (First && llvm::all_of(F.modificationSites(VD), [&](const Stmt *Site) {
        return !within(compat::beginLoc(Site), Loop) || !before(Site, First);
      }))
    return First;
  return nullptr;
}

/// \p VD (declared outside the iteration) is made by LibTorch factories from
/// no tensor, no forward pass and no call of the user's code, and never
/// modified (DefUse: a write through a view, `k[0] = v`, modifies it).
bool RetainGraphAnalysis::freshFactory(const VarDecl *VD) const {
  if (F.isModified(VD) || F.isRangeVariable(VD) || !VD->getInit())
    return false;
  ClosureReads Init = walk(VD->getInit());
  return !Init.ReadsThisTensor && !Init.CallsForward && !Init.CallsUser &&
         llvm::none_of(Init.Vars, [](const VarDecl *V) { return isTensorish(V->getType()); });
}

/// The places where \p VD gets a whole new value (its initialiser, a whole
/// assignment that does not read it), with that value.
const llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4> &
RetainGraphAnalysis::killPoints(const VarDecl *VD) {
  auto [It, New] = Kills.try_emplace(VD);
  if (New) {
    if (const Expr *Init = VD->getInit(); Init && !isa<ParmVarDecl>(VD))
      It->second.push_back({Init, Init});
    for (const auto &[Assign, Rhs] : F.assignments(VD))
      if (!readsItself(VD, Rhs))
        It->second.push_back({Assign, Rhs});
  }
  return It->second;
}

/// The sources of \p VD whose value may be the one read at \p Site: a whole
/// new value (killPoints) only when some path goes from it to \p Site
/// without another; every other source (`v += e`, `v.add_(e)`) always.
llvm::SmallVector<const Expr *, 4> RetainGraphAnalysis::reachingSources(const VarDecl *VD,
                                                                        const Expr *Site) {
  llvm::SmallVector<const Expr *, 4> Out;
  const auto &Points = killPoints(VD);
  for (const Expr *Src : F.sources(VD)) {
    const auto *Point = llvm::find_if(Points, [&](const auto &P) { return P.second == Src; });
    if (Point == Points.end() || !ordered(Point->first, Site)) {
      Out.push_back(Src);
      continue;
    }
    llvm::SmallVector<const Stmt *, 4> Others;
    for (const auto &P : Points)
      if (P.first != Point->first)
        Others.push_back(P.first);
    if (Order.reachesAvoiding(Point->first, Site, Others))
      Out.push_back(Src);
  }
  return Out;
}

/// A variable that holds no autograd graph: the batch of a range-for over a
/// DataLoader, a fresh factory tensor, or a local computed only from such
/// values by LibTorch operations (no forward pass, no call of user code).
/// Each variable asks the same of the variables its sources read, first to
/// last; a chain of variables may be as long as the function, so the
/// questions in progress are frames of an explicit stack, not calls.
bool RetainGraphAnalysis::graphFree(const VarDecl *Asked) {
  if (auto It = GraphFreeMemo.find(Asked); It != GraphFreeMemo.end())
    return It->second;
  struct Frame {
    const VarDecl *VD;
    bool Free = false;
    bool Done = true;                            ///< Free is the answer
    llvm::ArrayRef<const Expr *> Sources;        ///< the sources not walked yet
    llvm::SmallVector<const VarDecl *, 8> Reads; ///< what the last source walked reads
    size_t NextRead = 0;                         ///< the next of Reads to ask about
  };
  llvm::SmallVector<Frame, 8> Stack;
  auto Enter = [&](const VarDecl *VD) {
    GraphFreeMemo[VD] = false; // cycles: not known to be free
    Frame Fr{VD};
    if (F.isRangeVariable(VD)) {
      // A batch of a LibTorch DataLoader; not the element of a container of
      // the user's, which may hold anything.
      const Expr *RangeInit = F.rangeOf(VD);
      const CXXRecordDecl *Range =
          RangeInit ? classOf(RangeInit->getType(), /*LookThroughPointers=*/true) : nullptr;
      Fr.Free = Range && isInLibraryNamespace(Range) && !isTensorType(VD->getType()) &&
                !isTensorish(RangeInit->getType());
    } else if (VD->isLocalVarDecl() && !VD->isStaticLocal() && !F.isOpaquelyModified(VD)) {
      Fr.Free = true;
      Fr.Done = false;
      Fr.Sources = F.sources(VD);
    }
    Stack.push_back(std::move(Fr));
  };
  Enter(Asked);
  std::optional<bool> Answer; // of the frame just left, for the one below it
  for (;;) {
    Frame &Top = Stack.back();
    if (Answer) {
      if (*Answer) {
        ++Top.NextRead;
      } else {
        Top.Free = false;
        Top.Done = true;
      }
      Answer.reset();
    }
    const VarDecl *Next = nullptr; // a variable to answer for first
    while (!Top.Done && !Next) {
      if (Top.NextRead < Top.Reads.size()) {
        const VarDecl *V = Top.Reads[Top.NextRead];
        if (!isTensorish(V->getType()) && !F.isRangeVariable(V)) {
          ++Top.NextRead;
        } else if (auto It = GraphFreeMemo.find(V); It == GraphFreeMemo.end()) {
          Next = V;
        } else if (It->second) {
          ++Top.NextRead;
        } else {
          Top.Free = false;
          Top.Done = true;
        }
        continue;
      }
      if (Top.Sources.empty()) {
        Top.Done = true;
        continue;
      }
      const Expr *Src = Top.Sources.front();
      Top.Sources = Top.Sources.drop_front();
      ClosureReads W = walk(Src);
      if (W.ReadsThisTensor || W.CallsForward || W.CallsUser) {
        Top.Free = false;
        Top.Done = true;
        continue;
      }
      Top.Reads = std::move(W.Vars);
      Top.NextRead = 0;
    }
    if (Next) {
      Enter(Next); // Top waits for the answer (and may have moved)
      continue;
    }
    GraphFreeMemo[Top.VD] = Top.Free;
    bool Free = Top.Free;
    Stack.pop_back();
    if (Stack.empty())
      return Free;
    Answer = Free;
  }
}

/// \p VD holds different values where the retained closure reads it
/// (\p OwnSites) and where a later one does (\p TheirSites): every path
/// between any two of them, either way, gives it a whole new value
/// (`out = actor(s);` between the two losses; a write through a view,
/// `k[0] = v`, is a source of it, not a new value). A local only, not a
/// reference, never handed by non-const reference.
bool RetainGraphAnalysis::distinctValues(const VarDecl *VD, llvm::ArrayRef<const Expr *> OwnSites,
                                         llvm::ArrayRef<const Expr *> TheirSites) {
  if (!VD->isLocalVarDecl() || VD->isStaticLocal() || VD->getType()->isReferenceType() ||
      VD->getType()->isPointerType() || F.isOpaquelyModified(VD) || F.isRangeVariable(VD) ||
      OwnSites.empty() || TheirSites.empty())
    return false;
  llvm::SmallVector<const Stmt *, 4> Points;
  for (const auto &P : killPoints(VD))
    Points.push_back(P.first);
  if (Points.empty())
    return false;
  for (const Expr *Q : OwnSites)
    for (const Expr *R : TheirSites)
      if (Q == R || !ordered(Q, R) || Order.reachesAvoiding(Q, R, Points) ||
          Order.reachesAvoiding(R, Q, Points))
        return false;
  return true;
}

/// \p VD is declared anew on every iteration of a loop around both \p Call
/// and \p Later, and \p Later runs after \p Call only on a later iteration of
/// that loop (every path between them passes its condition): the two read
/// different objects.
bool RetainGraphAnalysis::apartInIterations(const VarDecl *VD, const CallExpr *Call,
                                            const Stmt *Later) const {
  if (!VD->isLocalVarDecl() || VD->isStaticLocal() || !ordered(Call, Later))
    return false;
  for (const Stmt *L = enclosingLoop(Call, PM, Body); L; L = enclosingLoop(L, PM, Body)) {
    if (!isDescendant(Later, L, PM))
      continue;
    const auto *RF = dyn_cast<CXXForRangeStmt>(L);
    if (!within(VD->getLocation(), loopBody(L)) && !(RF && RF->getLoopVariable() == VD))
      continue;
    const Expr *Cond = loopCondition(L);
    return Cond && ordered(Cond, Call) && !Order.reachesAvoiding(Call, Later, {Cond});
  }
  return false;
}

/// The graph retained by \p Call may reach what \p Later reads of \p VD (at
/// \p TheirSites): a tensor of the retained closure that may hold a graph,
/// holding the same value at both.
bool RetainGraphAnalysis::linksThrough(const VarDecl *VD, const Closure &Own,
                                       llvm::ArrayRef<const Expr *> TheirSites,
                                       const CallExpr *Call, const Stmt *Later) {
  return Own.Tensors.contains(VD) && !Own.Fresh.contains(VD) && !graphFree(VD) &&
         !apartInIterations(VD, Call, Later) && !distinctValues(VD, Own.sitesOf(VD), TheirSites);
}

/// A module both closures run may carry the first graph into the second (a
/// hidden state kept in a member).
bool RetainGraphAnalysis::sharesStatefulModule(const Closure &Own, const Closure &Theirs) const {
  if ((Own.UnnamedModule && (Theirs.UnnamedModule || !Theirs.Modules.empty())) ||
      (Theirs.UnnamedModule && !Own.Modules.empty()))
    return true;
  return llvm::any_of(Theirs.Modules, [&](const ValueDecl *M) {
    return Own.Modules.contains(M) && mayKeepGraphState(classOf(M->getType(), true));
  });
}

/// Step 2. Another backward pass that may reach the same graph: one that may
/// run after it (later in the function, anywhere in a loop around it, or in
/// a lambda) and whose own closure shares a node with it. One that starts
/// from tensors of its own (the generator's loss on the fake batch when the
/// discriminator's loss read `fake.detach()`, the next PPO epoch's loss from
/// a new forward pass) cannot.
bool RetainGraphAnalysis::laterBackwardReaches(const CallExpr *Call, const Closure &Own) {
  const bool CallInLambda = inLambda(Call);
  for (const CallExpr *Other : Backwards) {
    if (Other == Call)
      continue;
    // One that may run after it, from the CFG: a backward pass in another
    // branch of an `if` or after a `return` cannot.
    bool Relevant = CallInLambda || inLambda(Other);
    if (!Relevant && ordered(Call, Other))
      Relevant = Order.mayRunAfter(Other, Call);
    else if (!Relevant) {
      Relevant = before(Call, Other);
      for (const Stmt *L = enclosingLoop(Call, PM, Body); L && !Relevant;
           L = enclosingLoop(L, PM, Body))
        Relevant = isDescendant(Other, L, PM);
    }
    if (!Relevant)
      continue;
    const Expr *OtherRoot = rootOf(Other);
    if (CallInLambda || inLambda(Other) || !OtherRoot)
      return true;
    Closure Theirs = closureOf(OtherRoot, Other);
    if (Theirs.Outside || (Own.CallsUser && Theirs.CallsUser) || sharesStatefulModule(Own, Theirs) ||
        llvm::any_of(Theirs.Tensors, [&](const VarDecl *V) {
          return linksThrough(V, Own, Theirs.sitesOf(V), Call, Other);
        }))
      return true;
  }
  return false;
}

/// Step 3. A later call of the user's code that gets a tensor holding the
/// graph may run a backward pass of its own. "Later" from the CFG of the code
/// body holding both (a lambda's included), else from source order.
bool RetainGraphAnalysis::handedOn(const CallExpr *Call, const Closure &Own) {
  for (const auto &[User, Callee] : Shared.userFunctionCalls()) {
    if (User == Call || !before(Call, User) || isRuntimeCompanionCall(User) ||
        (ordered(Call, User) && !Order.mayRunAfter(User, Call)))
      continue;
    ClosureReads Args;
    for (const Expr *Arg : User->arguments())
      Args.read(Shared, Arg, nullptr);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(User))
      Args.read(Shared, MC->getImplicitObjectArgument(), nullptr);
    if (Args.Unknown)
      return true;
    for (size_t I = 0; I < Args.Vars.size(); ++I)
      if (linksThrough(Args.Vars[I], Own, {Args.Sites[I]}, Call, User))
        return true;
  }
  return false;
}

/// Where values leave the body, built once per function, when a finding is
/// about to be made.
const Escapes &RetainGraphAnalysis::escapes() {
  if (Leaving)
    return *Leaving;
  Leaving.emplace();
  // What an expression the walk did not meet reads is unknown: it reads
  // any carrier.
  auto ReadsOf = [&](const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Out) {
    ClosureReads Reads;
    Reads.read(Shared, E, nullptr);
    Out.append(Reads.Vars.begin(), Reads.Vars.end());
    return !Reads.Unknown;
  };
  for (const auto &[S, Value] : valuesLeaving(Shared)) {
    Leaving->Sites.push_back({S, {}, false});
    Leaving->Sites.back().ReadsAny = !ReadsOf(Value, Leaving->Sites.back().Reads);
  }
  if (!Leaving->Sites.empty())
    for (const auto &[Var, Sources] : F.allSources())
      for (const Expr *Src : Sources)
        if (!ReadsOf(Src, Leaving->SourcesRead[Var]))
          Leaving->SourcesReadAny.insert(Var);
  return *Leaving;
}

/// Step 4. A tensor that may hold the graph leaves the function after it
/// (returned, stored in a member, a global or a reference parameter), or
/// reaches one that does through the body's variables: the caller may
/// back-propagate through the graph again.
bool RetainGraphAnalysis::leavesFunction(const CallExpr *Call, const Closure &Own) {
  const Escapes &Exits = escapes();
  if (Exits.Sites.empty())
    return false;
  llvm::SmallPtrSet<const VarDecl *, 16> Carriers;
  for (const VarDecl *V : Own.Tensors)
    if (!Own.Fresh.contains(V) && !graphFree(V))
      Carriers.insert(V);
  auto ReadsCarrier = [&](llvm::ArrayRef<const VarDecl *> Reads) {
    return llvm::any_of(Reads, [&](const VarDecl *V) { return Carriers.contains(V); });
  };
  if (Carriers.empty())
    return false;
  // Every variable whose value may come from a carrier carries it too.
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const auto &[Var, Reads] : Exits.SourcesRead)
      if (!Carriers.contains(Var) && (Exits.SourcesReadAny.contains(Var) || ReadsCarrier(Reads)))
        Grew |= Carriers.insert(Var).second;
  }
  return llvm::any_of(Exits.Sites, [&](const Escapes::Site &Site) {
    return (ordered(Call, Site.S) ? Order.mayRunAfter(Site.S, Call) : before(Call, Site.S)) &&
           (Site.ReadsAny || ReadsCarrier(Site.Reads));
  });
}

/// A backward pass that writes retain_graph=true (a constant) and not
/// create_graph=true, with its argument positions; nullopt otherwise.
std::optional<BackwardShape> retainedBackward(const CallExpr *Call, const ASTContext &Ctx) {
  BackwardShape Shape = backwardShape(Call);
  if (!Shape.Root)
    return std::nullopt;
  const Expr *RetainArg = Call->getArg(Shape.Retain);
  if (isa<CXXDefaultArgExpr>(RetainArg) || constantBool(RetainArg, Ctx) != 1)
    return std::nullopt;
  const Expr *CreateArg = Call->getArg(Shape.Create);
  if (!isa<CXXDefaultArgExpr>(CreateArg) && constantBool(CreateArg, Ctx) != 0)
    return std::nullopt;
  return Shape;
}

} // namespace

void UnneededRetainGraphCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  // Collect: the backward passes (the core's Backward and Grad facts) that
  // write retain_graph=true.
  const FunctionFacts &Shared = core().facts(FD, Ctx);
  llvm::SmallVector<std::pair<const CallExpr *, BackwardShape>, 2> Retained;
  for (const Fact &Backward : Shared.all())
    if (Backward.K == Fact::Backward || Backward.K == Fact::Grad)
      if (const auto *Call = dyn_cast<CallExpr>(Backward.S))
        if (std::optional<BackwardShape> Shape = retainedBackward(Call, Ctx))
          Retained.push_back({Call, *Shape});
  if (Retained.empty())
    return;
  // Decide: nothing can go through the graph after it (RetainGraphAnalysis's
  // steps); diagnose.
  RetainGraphAnalysis Analysis(Shared, Body, Ctx.getSourceManager());
  for (const auto &[Call, Shape] : Retained)
    if (!Analysis.mayBeNeeded(Call, Shape.Root))
      diagnose(Call, Shape.Grad, Shape.Retain, Shape.Create, Analysis.inLoop(Call),
               Ctx.getSourceManager());
}

void UnneededRetainGraphCheck::diagnose(const CallExpr *Call, int Grad, int Retain, int Create,
                                        bool InLoop, const SourceManager &SM) {
  const Expr *RetainArg = Call->getArg(Retain);
  auto D = diag(compat::beginLoc(RetainArg),
                "'retain_graph' is true but no later backward pass in this %select{function|"
                "loop iteration}0 can reach the graph: the whole graph and its saved tensors "
                "stay in memory until the root tensor dies")
           << InLoop << RetainArg->getSourceRange();

  // The fix-it: drop the argument (and an empty gradient before it), or, when
  // create_graph is written after it, spell it 'false'. None inside macros.
  auto FileRange = [&](SourceLocation B, SourceLocation E) {
    return Lexer::makeFileCharRange(CharSourceRange::getCharRange(B, E), SM, getLangOpts());
  };
  auto EndOf = [&](const Expr *E) {
    return Lexer::getLocForEndOfToken(E->getEndLoc(), 0, SM, getLangOpts());
  };
  if (compat::beginLoc(Call).isMacroID() || Call->getEndLoc().isMacroID() ||
      compat::beginLoc(RetainArg).isMacroID())
    return;
  if (!isa<CXXDefaultArgExpr>(Call->getArg(Create))) {
    CharSourceRange R = FileRange(compat::beginLoc(RetainArg), EndOf(RetainArg));
    if (R.isValid())
      D << FixItHint::CreateReplacement(R, "false");
    return;
  }
  const Expr *GradArg = Call->getArg(Grad);
  CharSourceRange R;
  if (!isa<CXXDefaultArgExpr>(GradArg) && !isEmptyValue(GradArg))
    R = FileRange(EndOf(GradArg), EndOf(RetainArg));
  else if (Grad == 0) {
    // Everything between the parentheses of t.backward(...), comments too.
    SourceLocation AfterParen;
    if (const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParenImpCasts()))
      AfterParen = Lexer::findLocationAfterToken(ME->getMemberLoc(), tok::l_paren, SM,
                                                 getLangOpts(), false);
    R = FileRange(AfterParen.isValid() ? AfterParen : compat::beginLoc(GradArg), EndOf(RetainArg));
  } else
    R = FileRange(EndOf(Call->getArg(Grad - 1)), EndOf(RetainArg));
  if (R.isValid())
    D << FixItHint::CreateRemoval(R);
}

} // namespace clang::tidy::torch_check
