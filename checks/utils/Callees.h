//===--- Callees.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// Which function a call runs, as far as the analyses may follow it: a user
// function defined in the translation unit (followableCallee), one declared
// here and defined in another file (externalCallee), a virtual dispatch
// (isVirtualDispatch), and the key one function's template instantiations
// share (patternKey), and which argument a parameter receives (argumentFor,
// parameterIndexFor). Questions on names and declarations only: the call
// graph (CallGraph.h), the facts (FunctionFacts.h), the summaries
// (Summaries.h) and the training-loop analysis ask them.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CALLEES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CALLEES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch_check {

/// The definition a call runs when the analysis may follow it: a direct call
/// of a function defined in the translation unit (outside system headers and
/// LibTorch/std namespaces), not dispatched virtually to an unknown override.
/// Null for calls through pointers, std::function, lambdas' call operators and
/// library functions.
const FunctionDecl *followableCallee(const CallExpr *Call, const ASTContext &Ctx);

/// True when \p Call is a virtual call whose override is chosen at run time.
bool isVirtualDispatch(const CallExpr *Call);

/// True when \p FD is the user's code: not in a system header, not in
/// LibTorch's or the standard library's namespaces.
bool isUserFunction(const FunctionDecl *FD, const ASTContext &Ctx);

/// The function \p Call calls when it is a user function declared, but not
/// defined, in the translation unit (so its summary may come from another):
/// a direct call, not a virtual dispatch, not a lambda, not LibTorch's or a
/// system header's. Null otherwise.
const FunctionDecl *externalCallee(const CallExpr *Call, const ASTContext &Ctx);

/// The forward method that a call of a module holder runs (`model(x)` on a
/// TORCH_MODULE wrapper: its Impl's forward), when the Impl has exactly one
/// non-template `forward`; null for any other call.
const CXXMethodDecl *holderForward(const CallExpr *Call);

/// The key of \p FD: the canonical declaration of its template pattern (a
/// member of a class template specialisation or an instantiated function
/// template maps to the template's), else of \p FD. SummaryTable::key.
const FunctionDecl *patternKey(const FunctionDecl *FD);

/// The argument \p Call passes to parameter \p ParamIndex of its callee
/// (member operator calls shift their arguments by one: the object is the
/// first); null for a default argument or an index out of range.
const Expr *argumentFor(const CallExpr *Call, unsigned ParamIndex);

/// The index of the callee's parameter that receives \p Arg (an argument of
/// \p Call, compared after stripping parentheses and implicit casts); -1 when
/// \p Arg is not an argument, is the object of a member operator, or goes to
/// a variadic part.
int parameterIndexFor(const CallExpr *Call, const Expr *Arg);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CALLEES_H
