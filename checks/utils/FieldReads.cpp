//===--- FieldReads.cpp - libtorch-tidy -----------------------------------===//

#include "FieldReads.h"
#include "FunctionFacts.h"
#include "History.h"
#include "TorchNames.h"
#include "Traversal.h"

#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/STLExtras.h"

namespace clang::tidy::torch_check {

bool isTensorContainerField(const FieldDecl *F) {
  if (!F)
    return false;
  QualType T = F->getType();
  const CXXRecordDecl *RD = classOf(T);
  if (!RD || isTensorType(T) || T->isReferenceType() || T->isPointerType() ||
      !isa<ClassTemplateSpecializationDecl>(RD) || T->isDependentType())
    return false;
  const auto *Owner = dyn_cast<CXXRecordDecl>(F->getParent());
  if (!Owner || Owner->isInStdNamespace() || isAnyModuleLike(Owner))
    return false;
  return mayCarryHistoryType(T);
}

namespace {

/// A copy, or a conversion by a constructor of the library's (a vector of
/// tensors passed as `at::TensorList`).
bool isConversion(const Stmt *S) {
  const auto *CE = dyn_cast<CXXConstructExpr>(S);
  if (!CE || CE->getNumArgs() != 1 || !CE->getConstructor())
    return false;
  const CXXConstructorDecl *Ctor = CE->getConstructor();
  return Ctor->isCopyOrMoveConstructor() || isInLibraryNamespace(Ctor->getParent());
}

/// \p E without implicit nodes, copies (FunctionFacts.h's stripCopies) and
/// the library's conversions.
const Expr *stripConversions(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripCopies(E);
    if (!E || !isConversion(E))
      return E;
    E = cast<CXXConstructExpr>(E)->getArg(0);
  }
  return E;
}

/// The parent of \p E that is not an implicit node or parentheses.
const Stmt *parentBeyondImplicit(const Stmt *S, ASTContext &Ctx) {
  for (unsigned Depth = 0; S && Depth < 8; ++Depth) {
    auto Parents = Ctx.getParents(*S);
    if (Parents.size() != 1)
      return nullptr;
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return nullptr;
    if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
            ExprWithCleanups, CXXFunctionalCastExpr>(P) || isConversion(P)) {
      S = P;
      continue;
    }
    return P;
  }
  return nullptr;
}

/// The method call whose object is \p Object (through implicit nodes and
/// conversions): `Object.name(...)`; null when \p Object is not one.
const CXXMemberCallExpr *methodCalledOn(const Stmt *Object, ASTContext &Ctx) {
  const auto *Callee = dyn_cast_or_null<MemberExpr>(parentBeyondImplicit(Object, Ctx));
  if (!Callee || stripConversions(Callee->getBase()) != stripConversions(cast<Expr>(Object)))
    return nullptr;
  auto Parents = Ctx.getParents(*Callee);
  const auto *MC = Parents.size() == 1 ? Parents[0].get<CXXMemberCallExpr>() : nullptr;
  return MC && MC->getCallee() == Callee ? MC : nullptr;
}

/// \p Object's method named one of \p Names is called.
bool isCallOn(const Stmt *Object, std::initializer_list<llvm::StringRef> Names, ASTContext &Ctx) {
  const CXXMemberCallExpr *MC = methodCalledOn(Object, Ctx);
  return MC && MC->getMethodDecl() && MC->getMethodDecl()->getIdentifier() &&
         llvm::is_contained(Names, MC->getMethodDecl()->getName());
}

/// \p Value (a tensor computed from the member) is taken without its
/// history: `.detach()` or `.item()` on it.
bool detachedAt(const Stmt *Value, ASTContext &Ctx) {
  const CXXMemberCallExpr *MC = methodCalledOn(Value, Ctx);
  return MC && isTensorType(MC->getImplicitObjectArgument()->getType()) &&
         MC->getMethodDecl()->getIdentifier() &&
         llvm::is_contained({"detach", "item"}, MC->getMethodDecl()->getName());
}

enum class Use { Neutral, Detached, Other };

/// How \p ME (a name of the container: a member or a local) is used.
Use classify(const Expr *ME, ASTContext &Ctx) {
  // m.push_back(x), m.clear(), m.size() ...
  if (isCallOn(ME,
               {"push_back", "push_front", "emplace_back", "emplace_front", "insert", "emplace",
                "clear", "size", "empty", "reserve", "pop_back", "pop_front", "erase", "resize",
                "capacity", "shrink_to_fit"},
               Ctx))
    return Use::Neutral;
  if (const CXXMemberCallExpr *At = methodCalledOn(ME, Ctx);
      At && At->getMethodDecl()->getIdentifier() &&
      llvm::is_contained({"at", "front", "back"}, At->getMethodDecl()->getName()))
    return detachedAt(At, Ctx) ? Use::Detached : Use::Other;
  const Stmt *P = parentBeyondImplicit(ME, Ctx);
  if (!P)
    return Use::Other;
  // m[i].detach(), m.at(i).item()
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2 &&
      stripConversions(Op->getArg(0)) == ME)
    return detachedAt(Op, Ctx) ? Use::Detached : Use::Other;
  // torch::cat(m).detach(), torch::stack(m, 0).detach()
  if (const auto *Call = dyn_cast<CallExpr>(P); Call && !isa<CXXMemberCallExpr>(Call)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && FD->getIdentifier() && isInLibraryNamespace(FD) && !FD->isInStdNamespace() &&
        llvm::is_contained({"cat", "concat", "concatenate", "stack", "hstack", "vstack"},
                           FD->getName()) &&
        Call->getNumArgs() >= 1 && stripConversions(Call->getArg(0)) == ME)
      return detachedAt(Call, Ctx) ? Use::Detached : Use::Other;
  }
  return Use::Other;
}

/// Counts the use \p Name (of a member or a local container) in \p R.
void tally(FieldReads::Reads &R, const Expr *Name, ASTContext &Ctx) {
  switch (classify(Name, Ctx)) {
  case Use::Neutral:
    break;
  case Use::Detached:
    if (R.Detached++ == 0)
      R.FirstDetached = Name->getExprLoc();
    break;
  case Use::Other:
    R.Other = true;
    break;
  }
}

} // namespace

FieldReads::FieldReads(llvm::ArrayRef<const FunctionDecl *> Functions, FactsFn FactsOf,
                       ASTContext &Ctx) {
  // The member expressions of each body, its lambdas' included, from its
  // facts (the core's one walk). Constructors' member initialisers
  // (`logProbs()`) are not uses: the walk starts at the body.
  for (const FunctionDecl *FD : Functions)
    if (FD->hasBody() && !FD->isDependentContext())
      for (const auto &[Member, Refs] : FactsOf(FD).memberReferences())
        if (const auto *F = dyn_cast<FieldDecl>(Member); F && isTensorContainerField(F))
          for (const MemberExpr *ME : Refs)
            tally(ByField[F->getCanonicalDecl()], ME, Ctx);
}

FieldReads::Reads localReads(const VarDecl *V, const Stmt *Body, ASTContext &Ctx) {
  FieldReads::Reads R;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S); DRE && DRE->getDecl() == V)
      tally(R, DRE, Ctx);
  });
  return R;
}

const FieldReads::Reads *FieldReads::of(const FieldDecl *F) const {
  auto It = ByField.find(F ? F->getCanonicalDecl() : nullptr);
  return It == ByField.end() ? nullptr : &It->second;
}

} // namespace clang::tidy::torch_check
