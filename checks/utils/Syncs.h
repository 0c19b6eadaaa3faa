//===--- Syncs.h - libtorch-tidy --------------------------------*- C++ -*-===//
//
// Host synchronisations that a training loop pays on every iteration: which
// calls wait for the device (item(), cpu(), to(kCPU), torch::cuda::synchronize),
// which of them are the algorithm's (their value decides a branch) rather than
// a reporting habit, and which run on every call of the function that holds
// them (so that a helper the loop calls carries them into the loop). The
// core's Fact::Sync marks the candidates; torch-sync-in-loop and the
// functions' summaries (FunctionSummary::SyncEveryCall) ask these.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SYNCS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SYNCS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch_check {

enum class SyncKind { None, Item, Cpu, ToCpu, Synchronize };

/// What \p Call waits for the device with: `t.item()`, `t.cpu()`,
/// `t.to(kCPU ...)`, `torch::cuda::synchronize()`; None otherwise.
SyncKind classifySync(const CallExpr *Call);
/// How a message names \p K ("item()", "cpu()", "to(kCPU)", ...).
llvm::StringRef syncSpelling(SyncKind K);

/// Accepts a call that trains, besides a backward pass, an optimizer step and
/// zero_grad (a training loop's events: a helper that steps, a call that
/// receives the optimizer).
using TrainingCallFn = llvm::function_ref<bool(const CallExpr *)>;

/// The host needs the value of \p Call on every iteration to decide what
/// the training does: inside \p Scope, the value, directly or through a
/// local variable it is stored in with `=`, is the condition of a loop (how
/// often it runs), or of an `if`, `switch` or `?:` whose branch leaves or
/// restarts the loop (`if (kl > target) break;`, `if (v < eps) return;`,
/// `if (!std::isfinite(v)) continue;`) or trains (`if (loss.item<float>() > t)
/// { loss.backward(); opt.step(); }`, a call \p IsTraining accepts); or the
/// value shapes the step's tensor work: an argument of a forward pass, or an
/// integer size, index or Slice bound of a LibTorch operation.
/// A synchronisation whose value does is the algorithm's. One whose value
/// only chooses what to print, whether to save a checkpoint of the best
/// model, or whether to throw (an assertion: AT_ASSERT, TORCH_CHECK) is a
/// wait on every iteration that could wait for the end of the epoch.
bool valueDecidesControlFlow(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM,
                             TrainingCallFn IsTraining = nullptr);

/// \p Call synchronises for a reporting habit: a kind classifySync knows, on a
/// tensor not already on the CPU (a `.cpu()` result, a DataLoader batch's
/// field), whose value does not decide what the training does inside \p Scope
/// (valueDecidesControlFlow). SyncKind::None when it is not.
SyncKind habitualSync(const CallExpr *Call, const Stmt *Scope, const ParentMap &PM,
                      TrainingCallFn IsTraining = nullptr);

/// \p S runs on every call of the function whose body is \p Body: no `if`,
/// `switch`, `?:`, `&&` or `||` chooses it (except a test of whether a tensor
/// is defined, `if (p.grad().defined())`), it is not in a lambda or a catch
/// handler, and no `return`, `throw`, `goto`, `break` or `continue` written
/// before it can leave the way to it. Loops around it are allowed: a
/// synchronisation per element of a container runs at least as often.
bool runsOnEveryCall(const Stmt *S, const Stmt *Body, const ParentMap &PM, const SourceManager &SM);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SYNCS_H
