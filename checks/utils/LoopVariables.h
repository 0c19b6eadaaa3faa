//===--- LoopVariables.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// Which storage outlives one iteration of a loop: variables declared outside
// the loop (locals, parameters, the init-statement of a for loop), static
// locals, globals and data members. Checks use it to tell a value that dies at
// the end of an iteration from one that accumulates across iterations.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_LOOPVARIABLES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_LOOPVARIABLES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"

namespace clang::tidy::torch_check {

/// The storage an lvalue expression names: the variable of `v`, the data
/// member of `member_` / `this->member_` / `obj.member` (the member, when the
/// object is `*this`; else the root variable `obj`), the container of
/// `c[k]` / `c.at(k)` / `c.back()`, the tuple of `std::get<I>(t)`, the tensor of `t[i]`. Looks through
/// parentheses, implicit casts, `*p` and `p->`. Structured bindings resolve to
/// the variable they decompose. Null when the storage is not a named variable
/// or member (a temporary, a function's result).
const ValueDecl *storageOf(const Expr *E);

/// True when \p V keeps its value from one iteration of \p Loop to the next:
/// a data member, a global, a static local, a parameter, a local declared
/// before the loop or in a for loop's init-statement. False for a local
/// declared in the loop (including the loop variable of a range-for), and for
/// references declared in the loop (what they bind to is unknown: checks stay
/// silent).
bool outlivesIteration(const ValueDecl *V, const Stmt *Loop, const SourceManager &SM);

/// A parameter received by non-const lvalue reference: what is stored in it
/// is handed to the caller.
bool isOutParameter(const ValueDecl *V);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_LOOPVARIABLES_H
