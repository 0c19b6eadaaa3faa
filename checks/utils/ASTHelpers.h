//===--- ASTHelpers.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Small helpers on statements, expressions and source text shared by the
// checks and the analyses.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H

#include "Traversal.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include <optional>
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

/// What stripWrappers looks through besides parentheses and implicit casts
/// (with the cleanups and materialised temporaries that IgnoreParenImpCasts
/// skips), which it always does.
namespace wrappers {
enum : unsigned {
  Temporaries = 1u << 0,     ///< CXXBindTemporaryExpr too: every temporary's node
  FunctionalCasts = 1u << 1, ///< `T(x)` spelled as a cast
  ExplicitCasts = 1u << 2,   ///< static_cast, reinterpret_cast, C-style and functional casts
  CopiesAndMoves = 1u << 3,  ///< a copy or move construction (its one argument)
  Constructions = 1u << 4,   ///< any construction from one argument (conversions too)
  Dereferences = 1u << 5,    ///< `*p`, `p->` of pointers and smart pointers
  Commas = 1u << 6,          ///< `(a, b)`: b
};
} // namespace wrappers

/// \p E without the wrappers \p What names (wrappers::), repeatedly, in any
/// order: the one helper that strips nodes around a value. A chain longer
/// than 64 nodes (generated code) is returned where the bound stops it.
const Expr *stripWrappers(const Expr *E, unsigned What);

/// The container of a slot access `c[k]` (an overloaded subscript) or
/// `c.at(k)` (one argument), with the key or index in \p Key; null otherwise.
/// Whether `c` is a container of tensors (or a tensor) is the caller's
/// question.
const Expr *containerSlot(const Expr *E, const Expr *&Key);

/// \p E without parentheses, implicit casts, temporaries and cleanups:
/// stripWrappers(E, wrappers::Temporaries).
const Expr *skipImplicitTemporaries(const Expr *E);

/// The value of \p E when it is a constant known here (`false`, a constexpr
/// flag), as a condition; none when it is not (a variable, a dependent
/// expression). A defaulted argument (CXXDefaultArgExpr) is the caller's to
/// read.
std::optional<bool> knownBool(const Expr *E, const ASTContext &Ctx);

/// Whether \p A comes before \p B in the translation unit, each taken at its
/// expansion (a macro argument at the macro's use).
bool expandedBefore(SourceLocation A, SourceLocation B, const SourceManager &SM);

/// Whether \p Loc lies within \p Range, ends included, each taken at its
/// expansion.
bool withinExpansion(SourceLocation Loc, SourceRange Range, const SourceManager &SM);

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
/// True when \p E refers somewhere inside (a name, or a member access's
/// member) to a declaration of \p Decls (a set of `const Decl *` or of
/// `const ValueDecl *`): one walk, whatever the set's size.
template <typename DeclSet> bool refersToAny(const Stmt *E, const DeclSet &Decls) {
  return !Decls.empty() && anyStmt(E, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      return Decls.contains(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      return Decls.contains(ME->getMemberDecl());
    return false;
  });
}
/// True when \p E itself (through parentheses and implicit casts) names \p D:
/// `d`, `obj.d`, `p->d`; not an expression that merely mentions it.
bool namesDecl(const Expr *E, const ValueDecl *D);
/// The name of the function \p Call calls directly; "" for an operator, a
/// conversion, an indirect call or none.
llvm::StringRef calleeName(const CallExpr *Call);
/// True when \p S lies inside a lambda that is itself inside \p Ancestor.
bool isInLambdaBelow(const Stmt *S, const Stmt *Ancestor, const ParentMap &PM);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_ASTHELPERS_H
