//===--- ThreadBodies.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// GradMode and InferenceMode are thread-local: a guard held by the thread that
// starts a std::thread, std::jthread or std::async task does not cover the
// code that runs on it. These helpers find the lambdas that are such thread
// bodies and judge guards inside them on their own.
//
// Scope: a lambda written as the callable argument of the std::thread /
// std::jthread constructor or of std::async (possibly through std::move or a
// temporary), except std::async with std::launch::deferred alone (it runs on
// the thread that calls get()). Thread pools, named functions and stored
// callables are not followed.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"

namespace clang::tidy::torch_check {

/// The innermost lambda holding \p S when that lambda is the body of a thread
/// (std::thread / std::jthread construction, std::async call); null when the
/// innermost lambda is not one, or there is none.
const LambdaExpr *threadBodyLambda(const Stmt *S, const ParentMap &PM);

/// True when autograd is off where \p S runs, judged from the guards in the
/// body of the thread lambda \p L alone (the spawning thread's do not count).
bool isGradDisabledInThreadBody(const Stmt *S, const LambdaExpr *L, const ASTContext &Ctx);

/// The grad guard (NoGradGuard, InferenceMode, AutoGradMode(false)) declared
/// in a block enclosing \p S before it, innermost first; null when none.
const VarDecl *enclosingGradGuard(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H
