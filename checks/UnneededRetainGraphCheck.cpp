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
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
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

/// The value inside optional<bool>(...) conversions and temporaries.
const Expr *unwrapScalar(const Expr *E) {
  for (;;) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() == 1 && !isa<CXXDefaultArgExpr>(Construct->getArg(0))) {
      E = Construct->getArg(0);
      continue;
    }
    return E;
  }
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

/// True when \p S runs on every pass through \p LoopBody: only blocks (no
/// branch, loop, lambda or short-circuit) lie between them.
bool runsEveryIteration(const Stmt *S, const Stmt *LoopBody, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(S); P && P != LoopBody; P = PM.getParent(P)) {
    if (isa<IfStmt, SwitchStmt, SwitchCase, ForStmt, CXXForRangeStmt, WhileStmt, DoStmt,
            ConditionalOperator, BinaryConditionalOperator, LambdaExpr, CXXTryStmt,
            CXXCatchStmt>(P))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P); BO && BO->isLogicalOp())
      return false;
  }
  return true;
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

/// Collects the variables an expression reads and whether it reads something
/// whose graph may come from outside the current iteration.
class ClosureWalker : public RecursiveASTVisitor<ClosureWalker> {
public:
  llvm::SmallVector<const VarDecl *, 8> Vars;
  bool ReadsThisTensor = false; ///< a tensor member, or a tensor from a method of this
  bool CallsForward = false;
  bool CallsUser = false;
  bool CallsOtherUserCode = false; ///< a call of the user's code that is not a forward pass
  /// The calls of the user's functions in the body (the core's facts).
  const llvm::SmallPtrSetImpl<const CallExpr *> *UserCalls = nullptr;

  /// `t.detach()`, `t.item()`, `t.argmax(1)`, comparisons, integral
  /// conversions: what they read carries no graph into the result. Backward
  /// and grad calls are not cuts here (grad with create_graph returns graphs).
  /// With the queue parameter, RecursiveASTVisitor keeps its own explicit
  /// stack for the children (a one-parameter override would recurse once per
  /// level of the expression).
  bool TraverseStmt(Stmt *S, DataRecursionQueue *Queue = nullptr) {
    if (const auto *E = dyn_cast_or_null<Expr>(S);
        E && cutsHistory(E) && !isBackwardOrGradCall(dyn_cast<CallExpr>(E->IgnoreParenImpCasts())))
      return true;
    return RecursiveASTVisitor::TraverseStmt(S, Queue);
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const VarDecl *VD = DefUse::variableNamed(DRE))
      Vars.push_back(VD);
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()) && isTensorish(ME->getType()) &&
        !isa<CXXMethodDecl>(ME->getMemberDecl()))
      ReadsThisTensor = true;
    return true;
  }
  /// The modules whose forward pass the expression runs (a variable or a data
  /// member); UnnamedModule when one is not a plain name.
  llvm::SmallVector<const ValueDecl *, 4> Modules;
  bool UnnamedModule = false;

  bool VisitCallExpr(CallExpr *Call) {
    if (isForwardCall(Call)) {
      CallsForward = true;
      const Expr *Object = forwardCallObject(Call);
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
      else
        UnnamedModule = true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (isa<CXXThisExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts()) &&
          isTensorish(Call->getType()))
        ReadsThisTensor = true;
    if (UserCalls && UserCalls->contains(Call)) {
      CallsUser = true;
      CallsOtherUserCode |= !isForwardCall(Call);
    }
    return true;
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
    if (!RD->hasDefinition() || RD->getNumBases() != 1)
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

/// True when a forward pass of \p Module may link one call's graph to the
/// next: a user module class that keeps a tensor between calls (a hidden
/// state member assigned in a method), that has a method defined elsewhere,
/// or holds such a submodule. LibTorch's own modules (Linear, Sequential,
/// LSTM...) keep no graph between calls.
/// With \p Unknown false, a method defined elsewhere does not count: true only
/// when a tensor member is seen changing. Fields and bases are followed at most
/// four classes down (\p Depth): a bounded recursion.
bool mayKeepGraphState(const CXXRecordDecl *RD, unsigned Depth = 0, bool Unknown = true) {
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
      if (Unknown)
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

/// Where a value leaves the function: a `return`, or a store into storage
/// that outlives the call (a data member, a global or static, a reference
/// parameter or reference variable: `kept_ = loss`, `out = loss`,
/// `history_.push_back(loss)`, `member_.add_(loss)`). Lambdas included.
class EscapeCollector : public RecursiveASTVisitor<EscapeCollector> {
public:
  /// The statement and the value that leaves.
  llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4> Escapes;

  bool VisitReturnStmt(ReturnStmt *Return) {
    if (const Expr *Value = Return->getRetValue())
      Escapes.push_back({Return, Value});
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && outlivesCall(BO->getLHS()))
      Escapes.push_back({BO, BO->getRHS()});
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2 && outlivesCall(Op->getArg(0)))
      Escapes.push_back({Op, Op->getArg(1)});
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && !MD->isConst() && isTensorish(MC->getImplicitObjectArgument()->getType()) &&
          outlivesCall(MC->getImplicitObjectArgument()))
        for (const Expr *Arg : Call->arguments())
          Escapes.push_back({MC, Arg});
    return true;
  }

private:
  static bool outlivesCall(const Expr *Target) {
    const ValueDecl *Storage = storageOf(Target);
    if (!Storage)
      return !isa<DeclRefExpr>(Target->IgnoreParenImpCasts()); // `*p = v`, `f() = v`
    const auto *VD = dyn_cast<VarDecl>(Storage);
    if (!VD)
      return true; // a data member
    return VD->hasGlobalStorage() || VD->getType()->isReferenceType() ||
           VD->getType()->isPointerType();
  }
};

} // namespace

void UnneededRetainGraphCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  // Every finding is about a backward pass (isBackwardOrGradCall, the core's
  // Backward and Grad facts) that writes retain_graph=true.
  const FunctionFacts &Shared = core().facts(FD, Ctx);
  if (!llvm::any_of(Shared.all(), [&](const Fact &Backward) {
        if (Backward.K != Fact::Backward && Backward.K != Fact::Grad)
          return false;
        const auto *Call = dyn_cast<CallExpr>(Backward.S);
        BackwardShape Shape = Call ? backwardShape(Call) : BackwardShape{};
        if (!Shape.Root)
          return false;
        const Expr *RetainArg = Call->getArg(Shape.Retain);
        return !isa<CXXDefaultArgExpr>(RetainArg) && constantBool(RetainArg, Ctx) == 1;
      }))
    return;

  // The body's backward passes, calls of the user's code, and where its
  // variables get their values: the core's facts (DefUse.h); order from the
  // body's CFG (ExecutionOrder.h).
  llvm::SmallVector<const CallExpr *, 4> Backwards;
  for (const Fact &Backward : Shared.all())
    if (Backward.K == Fact::Backward || Backward.K == Fact::Grad)
      Backwards.push_back(cast<CallExpr>(Backward.S));
  llvm::SmallPtrSet<const CallExpr *, 8> UserCallSet;
  for (const auto &[Call, Callee] : Shared.userFunctionCalls())
    UserCallSet.insert(Call);
  const DefUse &F = Shared.defUse();
  const ParentMap &PM = Shared.parents();
  const ExecutionOrder &Order = Shared.order();

  auto Before = [&](const Stmt *A, const Stmt *B) {
    return startsBefore(A, B, SM);
  };
  /// The statements have a place in the CFG (not in a lambda): order
  /// questions about them go to the CFG; others fall back to source order.
  auto Placed = [&](const Stmt *A, const Stmt *B = nullptr) {
    return Order.isPlaced(A) && (!B || Order.isPlaced(B));
  };
  auto Within = [&](SourceLocation Loc, const Stmt *Scope) {
    Loc = SM.getExpansionLoc(Loc);
    return SM.isPointWithin(Loc, SM.getExpansionLoc(compat::beginLoc(Scope)),
                            SM.getExpansionLoc(Scope->getEndLoc()));
  };
  auto InLambda = [&](const Stmt *S) { return enclosingCodeBody(S, PM, Body) != Body; };

  /// The tensors a backward pass at \p At starting from \p Root reads, and
  /// whether one of them may hold a graph from outside the current iteration
  /// (or call): every tensor the root is computed from must be declared in
  /// that scope, or declared outside it from LibTorch factories and never
  /// modified, or reassigned as a whole on every iteration before \p At.
  struct Closure {
    bool Outside = false;
    llvm::SmallPtrSet<const VarDecl *, 16> Tensors; ///< every tensor read
    llvm::SmallPtrSet<const VarDecl *, 16> Fresh;   ///< outside, graph-free factories
    llvm::SmallPtrSet<const ValueDecl *, 4> Modules; ///< modules whose forward it runs
    bool UnnamedModule = false;
    bool CallsUser = false; ///< a call of the user's code (not a forward pass)
  };
  auto ClosureOf = [&](const Expr *Root, const CallExpr *At) {
    Closure C;
    const Stmt *CodeBody = enclosingCodeBody(At, PM, Body);
    const Stmt *Loop = enclosingLoop(At, PM, CodeBody);
    const Stmt *Scope = Loop ? Loop : CodeBody;
    llvm::SmallPtrSet<const VarDecl *, 16> Seen;
    llvm::SmallVector<const Expr *, 16> Work{Root};
    while (!Work.empty() && !C.Outside) {
      const Expr *E = Work.pop_back_val();
      ClosureWalker W;
      W.UserCalls = &UserCallSet;
      W.TraverseStmt(const_cast<Expr *>(E));
      if (W.ReadsThisTensor) {
        C.Outside = true;
        break;
      }
      C.Modules.insert(W.Modules.begin(), W.Modules.end());
      C.UnnamedModule |= W.UnnamedModule;
      C.CallsUser |= W.CallsOtherUserCode;
      for (const VarDecl *VD : W.Vars) {
        if (!Seen.insert(VD).second)
          continue;
        if (!isTensorish(VD->getType()) && !F.isRangeVariable(VD))
          continue;
        C.Tensors.insert(VD);
        const bool Local = VD->isLocalVarDecl() && !VD->isStaticLocal();
        // Declared anew on every iteration: in the loop body, or the variable of
        // a range-for (not the init statement of a for loop, which runs once).
        const auto *RF = dyn_cast_or_null<CXXForRangeStmt>(Loop);
        const bool PerIteration =
            Loop ? Within(VD->getLocation(), loopBody(Loop)) || (RF && RF->getLoopVariable() == VD)
                 : Within(VD->getLocation(), Scope);
        if (Local && PerIteration) {
          if (F.isRangeVariable(VD)) {
            if (const Expr *Range = F.rangeOf(VD))
              Work.push_back(Range);
            continue;
          }
          for (const Expr *Src : F.sources(VD))
            Work.push_back(Src);
          continue;
        }
        // Declared outside the loop but reassigned as a whole on every
        // iteration before the backward pass, from values that do not read it
        // (`loss = loss_fn(model(x), y);`, `loss = torch::zeros({});` then
        // `loss += part;`): the graph is this iteration's. Every other
        // modification inside the loop comes after that assignment.
        if (Local && Loop && !F.isOpaquelyModified(VD) && !F.isRangeVariable(VD)) {
          // An assignment that runs on every iteration before the backward
          // pass: from the CFG, one that dominates it (every path to the
          // backward pass, this iteration's included, runs it first) and
          // every other modification of the variable in the loop; in a
          // lambda, the first in source order that no branch skips and
          // that no modification in the loop precedes.
          auto ReadsItself = [&](const Expr *Rhs) {
            ClosureWalker Reads;
            Reads.UserCalls = &UserCallSet;
            Reads.TraverseStmt(const_cast<Expr *>(Rhs));
            return llvm::is_contained(Reads.Vars, VD) || Reads.ReadsThisTensor;
          };
          const Expr *First = nullptr;
          bool Ordered = false;
          if (Placed(At)) {
            for (const auto &[Assign, Rhs] : F.assignments(VD)) {
              if (!Within(compat::beginLoc(Assign), loopBody(Loop)) ||
                  !Order.dominates(Assign, At) || ReadsItself(Rhs))
                continue;
              if (llvm::all_of(F.modificationSites(VD), [&](const Stmt *Site) {
                    return Site == Assign || !Within(compat::beginLoc(Site), Loop) ||
                           Order.dominates(Assign, Site);
                  })) {
                First = Assign;
                Ordered = true;
                break;
              }
            }
          } else {
            for (const auto &[Assign, Rhs] : F.assignments(VD)) {
              if (!Within(compat::beginLoc(Assign), loopBody(Loop)) || !Before(Assign, At) ||
                  !runsEveryIteration(Assign, loopBody(Loop), PM) || ReadsItself(Rhs))
                continue;
              if (!First || Before(Assign, First))
                First = Assign;
            }
            Ordered = First && llvm::all_of(F.modificationSites(VD), [&](const Stmt *Site) {
                        return !Within(compat::beginLoc(Site), Loop) || !Before(Site, First);
                      });
          }
          if (Ordered) {
            // The values the variable gets from that assignment on (every
            // other modification in the loop comes after it).
            for (const Expr *Src : F.sources(VD))
              if (Within(compat::beginLoc(Src), Loop) &&
                  (Placed(First) || !Before(Src, First)))
                Work.push_back(Src);
            continue;
          }
        }
        // Declared outside: only a tensor made fresh by a factory and never
        // modified carries no graph of its own.
        if (!Local || F.isModified(VD) || F.isRangeVariable(VD) || !VD->getInit()) {
          C.Outside = true;
          break;
        }
        ClosureWalker Init;
        Init.UserCalls = &UserCallSet;
        Init.TraverseStmt(const_cast<Expr *>(VD->getInit()));
        if (Init.ReadsThisTensor || Init.CallsForward || Init.CallsUser ||
            llvm::any_of(Init.Vars, [](const VarDecl *V) { return isTensorish(V->getType()); })) {
          C.Outside = true;
          break;
        }
        C.Fresh.insert(VD);
      }
    }
    return C;
  };

  /// A variable that holds no autograd graph: the batch of a range-for over a
  /// DataLoader, a fresh factory tensor, or a local computed only from such
  /// values by LibTorch operations (no forward pass, no call of user code).
  /// Each variable asks the same of the variables its sources read, first to
  /// last; a chain of variables may be as long as the function, so the
  /// questions in progress are frames of an explicit stack, not calls.
  llvm::DenseMap<const VarDecl *, bool> GraphFreeMemo;
  auto GraphFree = [&](const VarDecl *Asked) -> bool {
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
      }
      else if (VD->isLocalVarDecl() && !VD->isStaticLocal() &&
               !F.isOpaquelyModified(VD)) {
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
        ClosureWalker W;
        W.UserCalls = &UserCallSet;
        W.TraverseStmt(const_cast<Expr *>(Src));
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
  };

  /// Where values leave the body (EscapeCollector), with the variables each
  /// one reads, and the variables the sources of each variable read: built
  /// once per function, when a finding is about to be made.
  struct Escapes {
    struct Site {
      const Stmt *S;
      llvm::SmallVector<const VarDecl *, 4> Reads;
    };
    llvm::SmallVector<Site, 4> Sites;
    llvm::DenseMap<const VarDecl *, llvm::SmallVector<const VarDecl *, 4>> SourcesRead;
  };
  std::optional<Escapes> Leaving;
  auto EscapesOf = [&]() -> const Escapes & {
    if (Leaving)
      return *Leaving;
    Leaving.emplace();
    auto ReadsOf = [](const Expr *E, llvm::SmallVectorImpl<const VarDecl *> &Out) {
      ClosureWalker Reads;
      Reads.TraverseStmt(const_cast<Expr *>(E));
      Out.append(Reads.Vars.begin(), Reads.Vars.end());
    };
    EscapeCollector Collect;
    Collect.TraverseStmt(const_cast<Stmt *>(Body));
    for (const auto &[S, Value] : Collect.Escapes) {
      Leaving->Sites.push_back({S, {}});
      ReadsOf(Value, Leaving->Sites.back().Reads);
    }
    if (!Leaving->Sites.empty())
      for (const auto &[Var, Sources] : F.allSources())
        for (const Expr *Src : Sources)
          ReadsOf(Src, Leaving->SourcesRead[Var]);
    return *Leaving;
  };

  auto RootOf = [](const CallExpr *Call) -> const Expr * {
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      return MC->getImplicitObjectArgument();
    return Call->getNumArgs() >= 1 ? Call->getArg(0) : nullptr;
  };

  for (const CallExpr *Call : Backwards) {
    BackwardShape Shape = backwardShape(Call);
    if (!Shape.Root)
      continue;
    const Expr *RetainArg = Call->getArg(Shape.Retain);
    if (isa<CXXDefaultArgExpr>(RetainArg) || constantBool(RetainArg, Ctx) != 1)
      continue;
    const Expr *CreateArg = Call->getArg(Shape.Create);
    const bool CreateWritten = !isa<CXXDefaultArgExpr>(CreateArg);
    if (CreateWritten && constantBool(CreateArg, Ctx) != 0)
      continue;

    const Stmt *CodeBody = enclosingCodeBody(Call, PM, Body);
    const Stmt *Loop = enclosingLoop(Call, PM, CodeBody);
    Closure Own = ClosureOf(Shape.Root, Call);
    if (Own.Outside)
      continue;
    // A module seen keeping a tensor between calls (a hidden state member):
    // the next forward pass, and its backward, go back into this graph.
    if (llvm::any_of(Own.Modules, [](const ValueDecl *M) {
          return mayKeepGraphState(classOf(M->getType(), true), 0, /*Unknown=*/false);
        }))
      continue;

    // Another backward pass that may reach the same graph: later in the
    // function, anywhere in a loop around this one, or in a lambda. One that
    // starts from tensors of its own (the generator's loss on the fake batch
    // when the discriminator's loss read `fake.detach()`) cannot.
    const bool CallInLambda = InLambda(Call);
    bool OtherBackward = false;
    for (const CallExpr *Other : Backwards) {
      if (Other == Call)
        continue;
      // One that may run after it, from the CFG: a backward pass in another
      // branch of an `if` or after a `return` cannot.
      bool Relevant = CallInLambda || InLambda(Other);
      if (!Relevant && Placed(Call, Other))
        Relevant = Order.mayRunAfter(Other, Call);
      else if (!Relevant) {
        Relevant = Before(Call, Other);
        for (const Stmt *L = enclosingLoop(Call, PM, Body); L && !Relevant;
             L = enclosingLoop(L, PM, Body))
          Relevant = isDescendant(Other, L, PM);
      }
      if (!Relevant)
        continue;
      const Expr *OtherRoot = RootOf(Other);
      if (CallInLambda || InLambda(Other) || !OtherRoot) {
        OtherBackward = true;
        break;
      }
      Closure Theirs = ClosureOf(OtherRoot, Other);
      // A module both run may carry the first graph into the second (a hidden
      // state kept in a member), and so may the user's functions.
      auto SharesStatefulModule = [&] {
        if ((Own.UnnamedModule && (Theirs.UnnamedModule || !Theirs.Modules.empty())) ||
            (Theirs.UnnamedModule && !Own.Modules.empty()))
          return true;
        return llvm::any_of(Theirs.Modules, [&](const ValueDecl *M) {
          return Own.Modules.contains(M) && mayKeepGraphState(classOf(M->getType(), true));
        });
      };
      if (Theirs.Outside || (Own.CallsUser && Theirs.CallsUser) || SharesStatefulModule() ||
          llvm::any_of(Theirs.Tensors, [&](const VarDecl *V) {
            return Own.Tensors.contains(V) && !Own.Fresh.contains(V) && !GraphFree(V);
          })) {
        OtherBackward = true;
        break;
      }
    }
    if (OtherBackward)
      continue;
    const llvm::SmallPtrSet<const VarDecl *, 16> &Tensors = Own.Tensors;

    // A later call of the user's code that gets one of these tensors may run a
    // backward pass of its own.
    bool HandedOn = false;
    for (const auto &[User, Callee] : Shared.userFunctionCalls()) {
      if (User == Call || !Before(Call, User) || isRuntimeCompanionCall(User) ||
          (Placed(Call, User) && !Order.mayRunAfter(User, Call)))
        continue;
      ClosureWalker Args;
      for (const Expr *Arg : User->arguments())
        Args.TraverseStmt(const_cast<Expr *>(Arg));
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(User))
        Args.TraverseStmt(MC->getImplicitObjectArgument());
      if (llvm::any_of(Args.Vars, [&](const VarDecl *V) { return Tensors.contains(V); })) {
        HandedOn = true;
        break;
      }
    }
    if (HandedOn)
      continue;

    // A tensor that may hold this graph leaves the function after it (returned,
    // stored in a member, a global or a reference parameter), or reaches one
    // that does through the body's variables: the caller may back-propagate
    // through the graph again.
    const Escapes &Exits = EscapesOf();
    if (!Exits.Sites.empty()) {
      llvm::SmallPtrSet<const VarDecl *, 16> Carriers;
      for (const VarDecl *V : Tensors)
        if (!Own.Fresh.contains(V) && !GraphFree(V))
          Carriers.insert(V);
      auto ReadsCarrier = [&](llvm::ArrayRef<const VarDecl *> Reads) {
        return llvm::any_of(Reads, [&](const VarDecl *V) { return Carriers.contains(V); });
      };
      // Every variable whose value may come from a carrier carries it too.
      for (bool Grew = !Carriers.empty(); Grew;) {
        Grew = false;
        for (const auto &[Var, Reads] : Exits.SourcesRead)
          if (!Carriers.contains(Var) && ReadsCarrier(Reads))
            Grew |= Carriers.insert(Var).second;
      }
      if (llvm::any_of(Exits.Sites, [&](const Escapes::Site &Site) {
            return (Placed(Call, Site.S) ? Order.mayRunAfter(Site.S, Call) : Before(Call, Site.S)) &&
                   ReadsCarrier(Site.Reads);
          }))
        continue;
    }

    auto D = diag(compat::beginLoc(RetainArg),
                  "'retain_graph' is true but no later backward pass in this %select{function|"
                  "loop iteration}0 can reach the graph: the whole graph and its saved tensors "
                  "stay in memory until the root tensor dies")
             << (Loop != nullptr) << RetainArg->getSourceRange();

    // The fix-it: drop the argument (and an empty gradient before it), or, when
    // create_graph is written after it, spell it 'false'.
    auto FileRange = [&](SourceLocation B, SourceLocation E) {
      return Lexer::makeFileCharRange(CharSourceRange::getCharRange(B, E), SM, getLangOpts());
    };
    auto EndOf = [&](const Expr *E) {
      return Lexer::getLocForEndOfToken(E->getEndLoc(), 0, SM, getLangOpts());
    };
    if (compat::beginLoc(Call).isMacroID() || Call->getEndLoc().isMacroID() ||
        compat::beginLoc(RetainArg).isMacroID())
      continue;
    if (CreateWritten) {
      CharSourceRange R = FileRange(compat::beginLoc(RetainArg), EndOf(RetainArg));
      if (R.isValid())
        D << FixItHint::CreateReplacement(R, "false");
      continue;
    }
    const Expr *GradArg = Call->getArg(Shape.Grad);
    CharSourceRange R;
    if (!isa<CXXDefaultArgExpr>(GradArg) && !isEmptyValue(GradArg))
      R = FileRange(EndOf(GradArg), EndOf(RetainArg));
    else if (Shape.Grad == 0) {
      // Everything between the parentheses of t.backward(...), comments too.
      SourceLocation AfterParen;
      if (const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParenImpCasts()))
        AfterParen = Lexer::findLocationAfterToken(ME->getMemberLoc(), tok::l_paren, SM,
                                                   getLangOpts(), false);
      R = FileRange(AfterParen.isValid() ? AfterParen : compat::beginLoc(GradArg), EndOf(RetainArg));
    }
    else
      R = FileRange(EndOf(Call->getArg(Shape.Grad - 1)), EndOf(RetainArg));
    if (R.isValid())
      D << FixItHint::CreateRemoval(R);
  }
}

} // namespace clang::tidy::torch_check
