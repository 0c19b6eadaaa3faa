//===--- ThreadBodies.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// GradMode and InferenceMode are thread-local: a guard held by the thread that
// starts a std::thread, std::jthread or std::async task does not cover the
// code that runs on it. These helpers find the lambdas that are such thread
// bodies and judge guards inside them on their own.
//
// Scope: a lambda written as the callable argument of the std::thread /
// std::jthread constructor, of std::async (except with std::launch::deferred
// alone: it runs on the thread that calls get()), of a thread pool's submit
// member (enqueue, submit, submit_task, detach_task, push, post, run, execute,
// add, schedule... on a class named like a thread pool) or of asio's post /
// dispatch / defer to a thread pool (possibly through std::move or a
// temporary). at::launch is not a thread body here: it carries the caller's
// grad mode to the task. Named functions and stored callables are not
// followed.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMap.h"

namespace clang::tidy::torch_check {

/// The innermost lambda holding \p S when that lambda is the body of a thread
/// (std::thread / std::jthread construction, std::async call, a task given to
/// a thread pool); null when the
/// innermost lambda is not one, or there is none. With \p OwnThreadOnly, only
/// a lambda that is the whole life of the thread running it: the body of a
/// std::thread / std::jthread (constructed, or emplaced into a container of
/// them), not a pool's task nor std::async's (a pool thread, on some standard
/// libraries, runs other tasks after it).
const LambdaExpr *threadBodyLambda(const Stmt *S, const ParentMap &PM, bool OwnThreadOnly = false);

/// True when autograd is off where \p S runs, judged from the guards in the
/// body of the thread lambda \p L alone (the spawning thread's do not count).
bool isGradDisabledInThreadBody(const Stmt *S, const LambdaExpr *L, const ASTContext &Ctx);

/// The grad guard (NoGradGuard, InferenceMode, AutoGradMode(false)) declared
/// in a block enclosing \p S before it, innermost first; null when none.
const VarDecl *enclosingGradGuard(const Stmt *S, const ParentMap &PM, const ASTContext &Ctx);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_THREADBODIES_H
