//===--- CallFacts.cpp - libtorch-tidy ------------------------------------===//

#include "CallFacts.h"
#include "ClangTidyCompat.h"
#include "ASTHelpers.h"
#include "Traversal.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch_check {

const Stmt *enclosingCodeBody(const Stmt *S, const ParentMap &PM, const Stmt *FunctionBody) {
  for (const Stmt *P = PM.getParent(S); P && P != FunctionBody; P = PM.getParent(P))
    if (const auto *Lambda = dyn_cast<LambdaExpr>(P))
      return Lambda->getBody();
  return FunctionBody;
}

bool isConditionalWithin(const Stmt *S, const Stmt *Scope, const ParentMap &PM) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != Scope; Child = P, P = PM.getParent(P)) {
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (Child != If->getCond() && Child != If->getInit() &&
          Child != If->getConditionVariableDeclStmt())
        return true;
      continue;
    }
    if (isa<SwitchStmt, CXXCatchStmt>(P))
      return true;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P)) {
      if (Child != CO->getCond())
        return true;
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P))
      if (BO->isLogicalOp() && Child == BO->getRHS())
        return true;
    if (P == Scope)
      break;
  }
  return false;
}

bool containsLoop(const Stmt *S) {
  return anyStmt(S, isLoopStmt, [](const Stmt *X) { return isa<LambdaExpr>(X); });
}

bool isAssignedWithin(const ValueDecl *VD, const Stmt *Scope) {
  return VD && anyStmt(Scope, [&](const Stmt *S) {
           if (const auto *BO = dyn_cast<BinaryOperator>(S))
             if (BO->isAssignmentOp() && namesDecl(BO->getLHS(), VD))
               return true;
           if (const auto *UO = dyn_cast<UnaryOperator>(S))
             if (UO->isIncrementDecrementOp() && namesDecl(UO->getSubExpr(), VD))
               return true;
           if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
             if (Op->isAssignmentOp() && Op->getNumArgs() >= 1 && namesDecl(Op->getArg(0), VD))
               return true;
           if (const auto *Call = dyn_cast<CallExpr>(S))
             if (const FunctionDecl *FD = Call->getDirectCallee())
               if (FD->getIdentifier() && FD->getName() == "swap")
                 for (const Expr *Arg : Call->arguments())
                   if (namesDecl(Arg, VD))
                     return true;
           return false;
         });
}

const Stmt *asBlockStatement(const Expr *E, const ParentMap &PM) {
  const Stmt *Cur = E;
  const Stmt *P = PM.getParent(Cur);
  while (P && isa<ExprWithCleanups, ImplicitCastExpr, ParenExpr, CXXBindTemporaryExpr,
                  MaterializeTemporaryExpr>(P)) {
    Cur = P;
    P = PM.getParent(P);
  }
  return isa_and_nonnull<CompoundStmt>(P) ? Cur : nullptr;
}

SourceLocation locationAfterSemicolon(const Stmt *S, const SourceManager &SM,
                                      const LangOptions &LangOpts) {
  SourceLocation End = S->getEndLoc();
  if (End.isInvalid() || End.isMacroID() || compat::beginLoc(S).isMacroID())
    return {};
  // A declaration statement's range already ends at its ';'.
  if (isa<DeclStmt>(S)) {
    bool Invalid = false;
    const char *C = SM.getCharacterData(End, &Invalid);
    if (Invalid || *C != ';')
      return {};
    return End.getLocWithOffset(1);
  }
  return Lexer::findLocationAfterToken(End, tok::semi, SM, LangOpts, false);
}

CharSourceRange statementRemovalRange(const Stmt *S, const SourceManager &SM,
                                      const LangOptions &LangOpts) {
  SourceLocation Begin = compat::beginLoc(S);
  SourceLocation AfterSemi = locationAfterSemicolon(S, SM, LangOpts);
  if (Begin.isInvalid() || AfterSemi.isInvalid())
    return {};
  auto [FID, BeginOff] = SM.getDecomposedLoc(Begin);
  auto [EndFID, EndOff] = SM.getDecomposedLoc(AfterSemi);
  if (FID != EndFID)
    return {};
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(FID, &Invalid);
  if (Invalid)
    return {};
  // Whole lines when only whitespace shares them.
  size_t LineStart = BeginOff;
  while (LineStart > 0 && (Buffer[LineStart - 1] == ' ' || Buffer[LineStart - 1] == '\t'))
    --LineStart;
  size_t LineEnd = EndOff;
  while (LineEnd < Buffer.size() && (Buffer[LineEnd] == ' ' || Buffer[LineEnd] == '\t'))
    ++LineEnd;
  bool StartsLine = LineStart == 0 || Buffer[LineStart - 1] == '\n';
  bool EndsLine = LineEnd == Buffer.size() || Buffer[LineEnd] == '\n' || Buffer[LineEnd] == '\r';
  if (StartsLine && EndsLine && LineStart > 0) {
    // Remove from the end of the previous line (its trailing blanks and the
    // newline) to the end of the statement's line, not including its newline:
    // clang's edit merging widens a removal that has blanks on both sides.
    size_t Start = LineStart - 1; // the '\n' that ends the previous line
    if (Start > 0 && Buffer[Start - 1] == '\r')
      --Start;
    while (Start > 0 && (Buffer[Start - 1] == ' ' || Buffer[Start - 1] == '\t'))
      --Start;
    SourceLocation FileStart = SM.getLocForStartOfFile(FID);
    return CharSourceRange::getCharRange(FileStart.getLocWithOffset(Start),
                                         FileStart.getLocWithOffset(LineEnd));
  }
  return CharSourceRange::getCharRange(Begin, AfterSemi);
}

} // namespace clang::tidy::torch_check
