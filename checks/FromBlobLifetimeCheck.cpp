//===--- FromBlobLifetimeCheck.cpp - libtorch-tidy ------------------------===//
//
// collect: the from_blob calls of a function, and for each the owner of the
// memory it wraps (a local container, array or unique_ptr, a buffer member of a
// local object, or a local pointer deleted/freed later in the function);
// decide: follow the tensor through the handles that share the memory (copies
// of the Tensor, views, .to(device), local aliases, aggregates, lambdas that
// capture it by copy) to a place where it outlives the owner (a return, a
// member, a container or variable of an outer scope used after the owner dies);
// diagnose: the escape, with notes at the owner and at the escape, and
// `.clone()` appended to the from_blob call.
//
//===----------------------------------------------------------------------===//

#include "FromBlobLifetimeCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

namespace {

/// Where the wrapped memory is owned, and where it dies.
struct Owner {
  const VarDecl *Var = nullptr;
  const Stmt *Scope = nullptr; ///< the block at whose end it is destroyed
  const Stmt *Free = nullptr;  ///< the delete/free() that releases it, if any
};

enum class EscapeKind { Return, Member, Container, Variable };

struct Escape {
  const Stmt *Where = nullptr;
  EscapeKind Kind = EscapeKind::Return;
  const VarDecl *Into = nullptr;
};

bool isStdClass(QualType T, std::initializer_list<llvm::StringRef> Names) {
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->isInStdNamespace() || !RD->getIdentifier())
    return false;
  return llvm::is_contained(Names, RD->getName());
}

/// A variable whose storage dies with its scope: a local or a by-value
/// parameter, not static, not a reference.
bool isAutomaticValue(const VarDecl *V) {
  return V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
         !V->getType()->isPointerType();
}

/// The local variable that owns the object \p E denotes: `v`, or `obj.a.b`
/// (members reached with '.') of a local object.
const VarDecl *rootLocal(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  while (const auto *ME = dyn_cast<MemberExpr>(E)) {
    if (ME->isArrow() || !isa<FieldDecl>(ME->getMemberDecl()))
      return nullptr;
    E = ME->getBase()->IgnoreParenImpCasts();
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return isAutomaticValue(V) ? V : nullptr;
}

/// The owning object behind the data pointer \p Arg: `v.data()`, `s.c_str()`,
/// `p.get()` (unique_ptr), `&v[0]`, `arr` (a C array), with casts.
const Expr *owningObject(const Expr *Arg) {
  const Expr *E = stripWrappers(Arg, wrappers::ExplicitCasts);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (!MD || !Obj || !MD->getDeclName().isIdentifier())
      return nullptr;
    QualType T = Obj->getType();
    if ((MD->getName() == "data" || MD->getName() == "c_str") &&
        isStdClass(T, {"vector", "basic_string", "array"}))
      return Obj;
    if (MD->getName() == "get" && isStdClass(T, {"unique_ptr"}))
      return Obj;
    return nullptr;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf) {
    const Expr *Sub = UO->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Sub)) {
      const Expr *Base = AS->getBase()->IgnoreParenImpCasts();
      return Base->getType()->isConstantArrayType() ? Base : nullptr;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Sub);
        Op && Op->getOperator() == OO_Subscript &&
        isStdClass(Op->getArg(0)->getType(), {"vector", "basic_string", "array"}))
      return Op->getArg(0);
    return nullptr;
  }
  if (E->getType()->isConstantArrayType())
    return E;
  return nullptr;
}

const Stmt *enclosingBlock(const Stmt *S, const ParentMap &PM, const Stmt *Body) {
  for (const Stmt *P = PM.getParent(S); P; P = PM.getParent(P)) {
    if (isa<CompoundStmt>(P))
      return P;
    if (P == Body)
      return P;
  }
  return Body;
}

/// The innermost lambda whose body holds \p S, or null.
const LambdaExpr *enclosingLambda(const Stmt *S, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(S); P; P = PM.getParent(P))
    if (const auto *L = dyn_cast<LambdaExpr>(P))
      return L;
  return nullptr;
}

/// Tensor methods whose result shares the storage of the tensor they are
/// called on (views, and conversions that do not copy in general).
bool sharesStorage(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier() || !isTensorType(MC->getType()))
    return false;
  llvm::StringRef N = MD->getName();
  if (N == "to") {
    // A dtype (or options that may carry one) converts with a copy: silent.
    for (const Expr *A : MC->arguments()) {
      if (isa<CXXDefaultArgExpr>(A))
        continue;
      if (isScalarTypeType(A->getType()))
        return false;
      // Options built implicitly from a device (`.to(torch::kCPU)` calls
      // `to(TensorOptions)` in LibTorch) carry that device only.
      if (isTensorOptionsType(A->getType()) && !toArgumentDevice(A))
        return false;
    }
    // .to(device): a copy unless the device is the CPU (where the memory
    // of a local buffer is); a device that may be another is taken as a copy.
    const Expr *Device = MC->getNumArgs() ? MC->getArg(0) : nullptr;
    return Device && isCPUDeviceExpr(Device->IgnoreParenImpCasts());
  }
  return llvm::is_contained({"contiguous", "view", "reshape", "flatten", "squeeze", "unsqueeze",
                             "narrow", "select", "slice", "t", "transpose", "permute", "expand",
                             "detach", "view_as", "reshape_as", "as_strided", "cpu", "alias",
                             "set_requires_grad", "requires_grad_", "unflatten", "chunk", "split"},
                            N);
}

bool isInsertion(const CXXMemberCallExpr *MC) {
  const CXXMethodDecl *MD = MC->getMethodDecl();
  if (!MD || !MD->getDeclName().isIdentifier())
    return false;
  if (!llvm::is_contained({"push_back", "emplace_back", "push_front", "emplace_front", "insert",
                           "emplace", "push", "insert_or_assign", "try_emplace", "assign"},
                          MD->getName()))
    return false;
  // Only the containers of the standard library and LibTorch are known to keep
  // what they are given: a project's class with a method of the same name (an RL
  // rollout storage's insert(...)) may copy it into tensors of its own.
  const CXXRecordDecl *RD = MD->getParent();
  return RD->isInStdNamespace() || isInLibraryNamespace(RD);
}

class EscapeFinder {
public:
  EscapeFinder(const FunctionFacts &Facts, const SourceManager &SM, const Owner &O)
      : Facts(Facts), PM(Facts.parents()), SM(SM), O(O), Body(Facts.body()) {
    OwnerLambda = O.Scope == Body ? nullptr : enclosingLambda(O.Scope, PM);
    if (O.Free)
      End = O.Free->getEndLoc();
    else
      End = O.Scope->getEndLoc();
  }

  std::optional<Escape> find(const CallExpr *FromBlob) {
    llvm::SmallVector<const Stmt *, 8> Work{FromBlob};
    while (!Work.empty()) {
      const Stmt *S = Work.pop_back_val();
      if (auto E = climb(S, Work))
        return E;
    }
    return std::nullopt;
  }

private:
  const FunctionFacts &Facts;
  const ParentMap &PM;
  const SourceManager &SM;
  const Owner &O;
  const Stmt *Body;
  const LambdaExpr *OwnerLambda = nullptr;
  SourceLocation End;
  llvm::SmallPtrSet<const void *, 8> Seen;

  bool after(SourceLocation L) const { return expandedBefore(End, L, SM); }

  /// A variable the tensor is stored in: an escape, an alias to follow, or
  /// neither.
  std::optional<Escape> intoVariable(const VarDecl *V, const Stmt *Where, EscapeKind Kind,
                                     llvm::SmallVectorImpl<const Stmt *> &Work) {
    if (!V->hasLocalStorage())
      return Escape{Where, Kind == EscapeKind::Container ? Kind : EscapeKind::Variable, V};
    if (isa<ParmVarDecl>(V)) {
      if (V->getType()->isReferenceType() || V->getType()->isPointerType())
        return Escape{Where, Kind == EscapeKind::Container ? Kind : EscapeKind::Variable, V};
      return std::nullopt;
    }
    const DeclStmt *D = Facts.declaration(V);
    bool Inside = D && isDescendant(D, O.Scope, PM);
    if (!Inside) {
      // An outer variable: the tensor escapes when it is read after the owner dies.
      for (const DeclRefExpr *Use : Facts.references(V))
        if (after(Use->getLocation()))
          return Escape{Where, Kind == EscapeKind::Container ? Kind : EscapeKind::Variable, V};
      return std::nullopt;
    }
    // A variable of the owner's scope: follow its uses.
    if (Seen.insert(V).second) {
      for (const DeclRefExpr *Use : Facts.references(V))
        Work.push_back(Use);
      for (const LambdaExpr *L : Facts.lambdas())
        for (const LambdaCapture &Cap : L->captures())
          if (Cap.capturesVariable() && Cap.getCaptureKind() == LCK_ByCopy &&
              Cap.getCapturedVar() == V && Seen.insert(L).second)
            Work.push_back(L);
    }
    return std::nullopt;
  }

  /// The tensor is assigned to \p LHS.
  std::optional<Escape> assignedTo(const Expr *LHS, const Stmt *Where,
                                   llvm::SmallVectorImpl<const Stmt *> &Work) {
    LHS = LHS->IgnoreParenImpCasts();
    EscapeKind Kind = EscapeKind::Variable;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS); Op && Op->getOperator() == OO_Subscript) {
      if (isTensorType(Op->getArg(0)->getType()))
        return std::nullopt; // t[i] = blob copies into t
      LHS = Op->getArg(0)->IgnoreParenImpCasts();
      Kind = EscapeKind::Container;
    }
    const Expr *E = LHS;
    while (const auto *ME = dyn_cast<MemberExpr>(E)) {
      const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
      if (isa<CXXThisExpr>(Base))
        return Escape{Where, Kind == EscapeKind::Container ? Kind : EscapeKind::Member, nullptr};
      if (ME->isArrow()) {
        // Through a pointer: a parameter's or a member's object outlives us.
        const auto *DRE = dyn_cast<DeclRefExpr>(Base);
        const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
        if (V && (isa<ParmVarDecl>(V) || !V->hasLocalStorage()))
          return Escape{Where, EscapeKind::Member, nullptr};
        return std::nullopt;
      }
      E = Base;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        return intoVariable(V, Where, Kind, Work);
    return std::nullopt;
  }

  std::optional<Escape> climb(const Stmt *Cur, llvm::SmallVectorImpl<const Stmt *> &Work) {
    while (const Stmt *P = PM.getParent(Cur)) {
      if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
              ExprWithCleanups, CXXFunctionalCastExpr, CStyleCastExpr, CXXStaticCastExpr,
              InitListExpr, CXXConstructExpr, ParenListExpr>(P)) {
        Cur = P;
        continue;
      }
      if (const auto *ME = dyn_cast<MemberExpr>(P)) {
        const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(PM.getParent(P));
        if (!MC || MC->getCallee()->IgnoreParens() != ME || !sharesStorage(MC))
          return std::nullopt;
        Cur = MC;
        continue;
      }
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P)) {
        if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 && Op->getArg(1)->IgnoreImplicit() ==
                                                                           dyn_cast<Expr>(Cur)->IgnoreImplicit())
          return assignedTo(Op->getArg(0), Op, Work);
        if (Op->getOperator() == OO_Subscript && Op->getArg(0) == Cur && isTensorType(Op->getType())) {
          Cur = Op;
          continue;
        }
        return std::nullopt;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
        if (BO->getOpcode() == BO_Assign && BO->getRHS() == Cur)
          return assignedTo(BO->getLHS(), BO, Work);
        return std::nullopt;
      }
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P)) {
        if (!isInsertion(MC))
          return std::nullopt;
        const Expr *Obj = MC->getImplicitObjectArgument();
        if (!Obj)
          return std::nullopt;
        std::optional<Escape> E = assignedTo(Obj, MC, Work);
        if (E && (E->Kind == EscapeKind::Variable || E->Kind == EscapeKind::Member))
          E->Kind = EscapeKind::Container;
        return E;
      }
      if (const auto *Call = dyn_cast<CallExpr>(P)) {
        const FunctionDecl *FD = Call->getDirectCallee();
        if (FD && FD->isInStdNamespace() && FD->getDeclName().isIdentifier() &&
            llvm::is_contained({"move", "forward", "make_pair", "make_tuple", "make_optional",
                                "make_shared", "make_unique"},
                               FD->getName())) {
          Cur = P;
          continue;
        }
        return std::nullopt;
      }
      if (const auto *L = dyn_cast<LambdaExpr>(P)) {
        // An init-capture `[u = t]`: the closure holds the tensor.
        if (!Seen.insert(L).second)
          return std::nullopt;
        Cur = L;
        continue;
      }
      if (const auto *R = dyn_cast<ReturnStmt>(P)) {
        if (enclosingLambda(R, PM) != OwnerLambda)
          return std::nullopt;
        if (O.Free && !after(R->getBeginLoc()))
          return std::nullopt;
        return Escape{R, EscapeKind::Return, nullptr};
      }
      if (const auto *DS = dyn_cast<DeclStmt>(P)) {
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit() == Cur)
            return intoVariable(V, DS, EscapeKind::Variable, Work);
        return std::nullopt;
      }
      return std::nullopt;
    }
    return std::nullopt;
  }
};

/// The owner of the memory \p FromBlob wraps, or none we are sure of.
std::optional<Owner> ownerOf(const CallExpr *FromBlob, const FunctionFacts &Facts,
                             const SourceManager &SM) {
  const ParentMap &PM = Facts.parents();
  const Stmt *Body = Facts.body();
  const Expr *Data = FromBlob->getArg(0);
  if (const Expr *Obj = owningObject(Data)) {
    const VarDecl *V = rootLocal(Obj);
    if (!V)
      return std::nullopt;
    Owner O;
    O.Var = V;
    if (isa<ParmVarDecl>(V)) {
      O.Scope = Body;
    } else {
      const DeclStmt *D = Facts.declaration(V);
      if (!D)
        return std::nullopt;
      O.Scope = enclosingBlock(D, PM, Body);
    }
    return O;
  }
  // A local pointer released later in the function, unconditionally after the
  // from_blob call (a delete in the same or an enclosing block).
  const auto *DRE = dyn_cast<DeclRefExpr>(stripWrappers(Data, wrappers::ExplicitCasts));
  const auto *P = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!P || !P->hasLocalStorage() || !P->getType()->isPointerType())
    return std::nullopt;
  for (const Fact *Release : Facts.of(Fact::Release)) {
    const Stmt *F = Release->S;
    const Expr *Arg = isa<CXXDeleteExpr>(F) ? cast<CXXDeleteExpr>(F)->getArgument()
                                             : cast<CallExpr>(F)->getArg(0);
    const auto *FR = dyn_cast<DeclRefExpr>(stripWrappers(Arg, wrappers::ExplicitCasts));
    if (!FR || FR->getDecl() != P)
      continue;
    if (!expandedBefore(FromBlob->getEndLoc(), F->getBeginLoc(), SM))
      continue;
    const Stmt *Block = PM.getParent(F);
    if (!Block || !isa<CompoundStmt>(Block) || !isDescendant(FromBlob, Block, PM) ||
        enclosingLambda(F, PM) != enclosingLambda(FromBlob, PM))
      continue;
    Owner O;
    O.Var = P;
    O.Scope = Block;
    O.Free = F;
    return O;
  }
  return std::nullopt;
}

/// True when \p V is handed over somewhere in \p S: `std::move(v)`,
/// `std::forward<T>(v)`, `std::swap(v, w)` or `v.swap(w)`. A moved container
/// takes its heap block along, so the memory may live on in its new owner.
bool isHandedOver(const Stmt *S, const VarDecl *V) {
  return anyStmt(S, [&](const Stmt *Node) {
    const auto *Call = dyn_cast<CallExpr>(Node);
    if (!Call)
      return false;
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->isInStdNamespace() && FD->getDeclName().isIdentifier() &&
        llvm::is_contained({"move", "forward", "swap", "exchange"}, FD->getName()))
      for (const Expr *Arg : Call->arguments())
        if (namesDecl(Arg, V))
          return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
      if (const CXXMethodDecl *MD = MC->getMethodDecl();
          MD && MD->getDeclName().isIdentifier() && MD->getName() == "swap" &&
          (namesDecl(MC->getImplicitObjectArgument(), V) ||
           llvm::any_of(MC->arguments(), [&](const Expr *A) { return namesDecl(A, V); })))
        return true;
    return false;
  });
}

/// True when \p R returns the owner \p V itself (`return item;`, moved or
/// elided): the tensor stored in it travels with its memory.
bool returnsOwner(const ReturnStmt *R, const VarDecl *V) {
  const Expr *E = R->getRetValue();
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E)) {
      E = Cleanups->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E); Construct && Construct->getNumArgs() == 1) {
      E = Construct->getArg(0);
      continue;
    }
    break;
  }
  return namesDecl(E, V);
}

llvm::StringRef describe(const Escape &E) {
  switch (E.Kind) {
  case EscapeKind::Return:
    return "returned";
  case EscapeKind::Member:
    return "stored in a member";
  case EscapeKind::Container:
    return "stored in a container that outlives it";
  case EscapeKind::Variable:
    return "kept in a variable that outlives it";
  }
  return "";
}

} // namespace

void FromBlobLifetimeCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed("from_blob"))
    return;
  const SourceManager &SM = Ctx.getSourceManager();

  for (const CallSite &Site : Facts.calls()) {
    const auto *Call = dyn_cast<CallExpr>(Site.E);
    if (!Call || !isFromBlobCall(Call) || Call->getNumArgs() == 0 || fromBlobHasDeleter(Call))
      continue;
    std::optional<Owner> O = ownerOf(Call, Facts, SM);
    if (!O)
      continue;
    std::optional<Escape> E = EscapeFinder(Facts, SM, *O).find(Call);
    if (!E)
      continue;
    // The owner itself is returned with the tensor inside it, or handed over
    // (moved, swapped): its memory may outlive the scope. Not followed.
    if (!O->Free && (isHandedOver(Body, O->Var) ||
                     (E->Kind == EscapeKind::Return && isa_and_nonnull<ReturnStmt>(E->Where) &&
                      returnsOwner(cast<ReturnStmt>(E->Where), O->Var))))
      continue;
    SourceLocation Loc = compat::beginLoc(Call);
    {
      auto D = diag(Loc, "tensor from 'from_blob' over the memory of %0 is %1 while %0 %2: reading "
                         "it afterwards is a use after free; copy it with '.clone()'")
               << O->Var << describe(*E)
               << (O->Free ? "is freed" : "is destroyed at the end of its scope")
               << Call->getSourceRange();
      CharSourceRange Range = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Call->getSourceRange()),
                                                       SM, getLangOpts());
      if (Range.isValid() && !Call->getBeginLoc().isMacroID() && !Call->getEndLoc().isMacroID())
        D << FixItHint::CreateInsertion(Range.getEnd(), ".clone()");
    }
    if (O->Free)
      diag(O->Free->getBeginLoc(), "the memory is freed here", DiagnosticIDs::Note);
    else
      diag(O->Var->getLocation(), "%0 owns the memory", DiagnosticIDs::Note) << O->Var;
    diag(compat::beginLoc(E->Where), "the tensor escapes here", DiagnosticIDs::Note);
  }
}

} // namespace clang::tidy::torch_check
