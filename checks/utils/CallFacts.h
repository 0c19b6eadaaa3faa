//===--- CallFacts.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Facts about where a call sits in a function body, shared by the checks that
// judge a call by its loop: does it run on every iteration, is its object the
// same on every iteration, which statement of a block is it, and the source
// range that removes that statement cleanly.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CALLFACTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CALLFACTS_H

#include "clang/AST/Decl.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_check {

/// The body \p S runs in: the body of the innermost lambda that spells \p S,
/// or \p FunctionBody.
const Stmt *enclosingCodeBody(const Stmt *S, const ParentMap &PM, const Stmt *FunctionBody);

/// True when \p S runs only under a condition inside \p Scope: an if, switch,
/// conditional operator, && / || operand, or a catch handler between \p S and
/// \p Scope (the loop statement or body). The condition of an if is not
/// itself conditional.
bool isConditionalWithin(const Stmt *S, const Stmt *Scope, const ParentMap &PM);

/// True when \p S holds a loop statement (not looking into lambdas).
bool containsLoop(const Stmt *S);

/// True when \p VD (a variable, or a data member named through any object) is
/// assigned inside \p Scope: =, compound assignment, ++/--, or swap().
bool isAssignedWithin(const ValueDecl *VD, const Stmt *Scope);

/// When \p E is a full statement of a compound statement (possibly wrapped in
/// ExprWithCleanups / casts), that statement; otherwise null.
const Stmt *asBlockStatement(const Expr *E, const ParentMap &PM);

/// The range that removes the statement \p S (an expression statement ending
/// with ';'): its whole line(s) when nothing else shares them, otherwise the
/// statement and its ';'. Invalid when \p S is in a macro.
CharSourceRange statementRemovalRange(const Stmt *S, const SourceManager &SM,
                                      const LangOptions &LangOpts);

/// The location just past the ';' that ends the expression statement \p S;
/// invalid when there is none or it is in a macro.
SourceLocation locationAfterSemicolon(const Stmt *S, const SourceManager &SM,
                                      const LangOptions &LangOpts);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CALLFACTS_H
