//===--- ASTHelpers.cpp - libtorch-tidy -----------------------------------===//

#include "ASTHelpers.h"

namespace clang::tidy::torch_check {

bool isDescendant(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM) {
  for (const Stmt *P = S; P; P = PM.getParent(P))
    if (P == Ancestor)
      return true;
  return false;
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

} // namespace clang::tidy::torch_check
