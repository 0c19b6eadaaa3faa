//===--- ASTHelpers.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Small helpers on statements, expressions and source text shared by the
// checks and the analyses.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include <string>

namespace clang::tidy::torch_check {

/// True when \p Ancestor is \p S or encloses it (per \p PM).
bool isDescendant(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM);

/// for, range-for, while and do statements.
bool isLoopStmt(const Stmt *S);

/// The innermost loop that encloses \p S (not counting \p S itself), whose body
/// (or condition/increment) holds \p S; stops at \p StopAt (a function body or a
/// lambda body) and returns null when there is none. Lambdas end the search:
/// a lambda's body does not run in the loop that spells it.
const Stmt *enclosingLoop(const Stmt *S, const ParentMap &PM, const Stmt *StopAt = nullptr);

/// The body statement of a loop statement.
const Stmt *loopBody(const Stmt *Loop);

/// \p E without parentheses, implicit casts, temporaries and cleanups
/// (a bounded number of them; a longer chain is returned as it stands).
const Expr *skipImplicitTemporaries(const Expr *E);

/// Whether \p A comes before \p B in the translation unit, each taken at its
/// expansion (a macro argument at the macro's use).
bool expandedBefore(SourceLocation A, SourceLocation B, const SourceManager &SM);

/// Whether \p A starts before \p B (their first tokens, at their expansions):
/// the source order the checks sort by and fall back to where no CFG orders two
/// statements.
bool startsBefore(const Stmt *A, const Stmt *B, const SourceManager &SM);

/// The leading whitespace of the line that holds \p Loc (its expansion).
std::string indentationAt(SourceLocation Loc, const SourceManager &SM);

/// The object expression of a member call, with parens, implicit casts,
/// `->`/`*` of pointers and smart pointers stripped.
const Expr *memberCallObject(const CallExpr *Call);
/// The variable or field \p E names (`x`, `this->x`, `x_`), or null.
const ValueDecl *namedDecl(const Expr *E);
/// True when \p E refers to \p D somewhere inside.
bool refersTo(const Stmt *E, const ValueDecl *D);
/// True when \p S lies inside a lambda that is itself inside \p Ancestor.
bool isInLambdaBelow(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
