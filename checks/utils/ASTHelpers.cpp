//===--- ASTHelpers.cpp - libtorch-tidy -----------------------------------===//

#include "ASTHelpers.h"
#include "ClangTidyCompat.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::torch_check {

bool isDescendant(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM) {
  for (const Stmt *P = S; P; P = PM.getParent(P))
    if (P == Ancestor)
      return true;
  return false;
}

bool isLoopStmt(const Stmt *S) {
  return isa_and_nonnull<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S);
}

const Stmt *enclosingLoop(const Stmt *S, const ParentMap &PM, const Stmt *StopAt) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != StopAt; Child = P, P = PM.getParent(P)) {
    if (isa<LambdaExpr>(P))
      return nullptr;
    if (!isLoopStmt(P))
      continue;
    // The init statement of a for loop and the range of a range-for run once.
    if (const auto *For = dyn_cast<ForStmt>(P); For && Child == For->getInit())
      continue;
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(P);
        RF && Child != RF->getBody() && Child != RF->getLoopVarStmt())
      continue;
    return P;
  }
  return nullptr;
}

const Stmt *loopBody(const Stmt *Loop) {
  if (const auto *For = dyn_cast_or_null<ForStmt>(Loop))
    return For->getBody();
  if (const auto *RF = dyn_cast_or_null<CXXForRangeStmt>(Loop))
    return RF->getBody();
  if (const auto *W = dyn_cast_or_null<WhileStmt>(Loop))
    return W->getBody();
  if (const auto *D = dyn_cast_or_null<DoStmt>(Loop))
    return D->getBody();
  return nullptr;
}

std::optional<bool> knownBool(const Expr *E, const ASTContext &Ctx) {
  bool Value = false;
  if (!E || E->isValueDependent() || !E->EvaluateAsBooleanCondition(Value, Ctx))
    return std::nullopt;
  return Value;
}

bool expandedBefore(SourceLocation A, SourceLocation B, const SourceManager &SM) {
  return SM.isBeforeInTranslationUnit(SM.getExpansionLoc(A), SM.getExpansionLoc(B));
}

bool startsBefore(const Stmt *A, const Stmt *B, const SourceManager &SM) {
  return expandedBefore(compat::beginLoc(A), compat::beginLoc(B), SM);
}

std::string indentationAt(SourceLocation Loc, const SourceManager &SM) {
  Loc = SM.getExpansionLoc(Loc);
  std::pair<FileID, unsigned> Decomposed = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(Decomposed.first, &Invalid);
  if (Invalid)
    return "";
  size_t LineStart = Buffer.rfind('\n', Decomposed.second ? Decomposed.second - 1 : 0);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  if (Decomposed.second == 0)
    LineStart = 0;
  llvm::StringRef Line = Buffer.slice(LineStart, Decomposed.second);
  return Line.take_while([](char C) { return C == ' ' || C == '\t'; }).str();
}

const Expr *stripWrappers(const Expr *E, unsigned What) {
  using namespace wrappers;
  // Real code has a few such nodes in a row; 64 bounds a generated chain.
  for (unsigned Depth = 0; E && Depth < 64; ++Depth) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(Next); BT && (What & Temporaries))
      Next = BT->getSubExpr();
    else if (const auto *FE = dyn_cast<FullExpr>(Next); FE && (What & Temporaries))
      Next = FE->getSubExpr();
    else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(Next);
             FC && (What & (FunctionalCasts | ExplicitCasts)))
      Next = FC->getSubExpr();
    else if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Next); Cast && (What & ExplicitCasts))
      Next = Cast->getSubExpr();
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(Next);
             CE && CE->getNumArgs() == 1 &&
             ((What & Constructions) ||
              ((What & CopiesAndMoves) && CE->getConstructor()->isCopyOrMoveConstructor())))
      Next = CE->getArg(0);
    else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Next);
             Op && (What & Dereferences) && Op->getNumArgs() == 1 &&
             (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star))
      Next = Op->getArg(0);
    else if (const auto *UO = dyn_cast<UnaryOperator>(Next);
             UO && (What & Dereferences) && UO->getOpcode() == UO_Deref)
      Next = UO->getSubExpr();
    else if (const auto *BO = dyn_cast<BinaryOperator>(Next);
             BO && (What & Commas) && BO->getOpcode() == BO_Comma)
      Next = BO->getRHS();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *skipImplicitTemporaries(const Expr *E) {
  return stripWrappers(E, wrappers::Temporaries);
}

const Expr *memberCallObject(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  return MC ? stripWrappers(MC->getImplicitObjectArgument(), wrappers::Dereferences) : nullptr;
}

const ValueDecl *namedDecl(const Expr *E) {
  if (!E)
    return nullptr;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
      return dyn_cast<FieldDecl>(ME->getMemberDecl());
  return nullptr;
}

bool refersTo(const Stmt *E, const ValueDecl *D) {
  return D && anyStmt(E, [&](const Stmt *S) {
           if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
             return DRE->getDecl() == D;
           if (const auto *ME = dyn_cast<MemberExpr>(S))
             return ME->getMemberDecl() == D;
           return false;
         });
}

bool withinExpansion(SourceLocation Loc, SourceRange Range, const SourceManager &SM) {
  Loc = SM.getExpansionLoc(Loc);
  return !SM.isBeforeInTranslationUnit(Loc, SM.getExpansionLoc(Range.getBegin())) &&
         !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Range.getEnd()), Loc);
}

bool namesDecl(const Expr *E, const ValueDecl *D) {
  if (!E || !D)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl() == D;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl() == D;
  return false;
}

llvm::StringRef calleeName(const CallExpr *Call) {
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  const IdentifierInfo *II = FD ? FD->getIdentifier() : nullptr;
  return II ? II->getName() : llvm::StringRef();
}

bool isInLambdaBelow(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(S); P && P != Ancestor; P = PM.getParent(P))
    if (isa<LambdaExpr>(P))
      return true;
  return false;
}

const Expr *containerSlot(const Expr *E, const Expr *&Key) {
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
    Key = Op->getArg(1);
    return Op->getArg(0);
  }
  if (const auto *At = dyn_cast_or_null<CXXMemberCallExpr>(E);
      At && At->getMethodDecl() && At->getMethodDecl()->getIdentifier() &&
      At->getMethodDecl()->getName() == "at" && At->getNumArgs() == 1) {
    Key = At->getArg(0);
    return At->getImplicitObjectArgument();
  }
  return nullptr;
}

} // namespace clang::tidy::torch_check
