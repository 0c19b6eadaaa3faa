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

const Expr *skipImplicitTemporaries(const Expr *E) {
  // Real code has a few such nodes in a row; 32 bounds a generated one.
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = BT->getSubExpr();
    else if (const auto *FE = dyn_cast<FullExpr>(Next))
      Next = FE->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *memberCallObject(const CallExpr *Call) {
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(Call);
  if (!MC)
    return nullptr;
  const Expr *E = MC->getImplicitObjectArgument();
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
        Op && (Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() == 1) {
      E = Op->getArg(0);
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_Deref) {
      E = UO->getSubExpr();
      continue;
    }
    break;
  }
  return E;
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

bool isInLambdaBelow(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM) {
  for (const Stmt *P = PM.getParent(S); P && P != Ancestor; P = PM.getParent(P))
    if (isa<LambdaExpr>(P))
      return true;
  return false;
}

} // namespace clang::tidy::torch_check
