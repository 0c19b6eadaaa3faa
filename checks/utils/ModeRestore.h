//===--- ModeRestore.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// Thread-local modes that code switches with setter calls and must switch
// back on every path: autograd (GradMode::set_enabled(false) ...
// set_enabled(true)), autocast (at::autocast::set_enabled(true) ...
// set_enabled(false)) and the current CUDA stream (setCurrentCUDAStream(s)
// ... setCurrentCUDAStream(saved), where `saved` came from
// getCurrentCUDAStream() before the switch). The control-flow analysis that
// follows the paths from the call that enters the mode, and the statement
// pair a RAII guard can replace, are shared by the checks of those modes.
//
// A mode whose setter takes a value rather than a constant (the stream) tells
// an enter from a restore by where the value came from: a restore hands back
// a saved state (savedStateGetters), read before the switch. Three places
// restore a mode without a setter in the code body, and the checks ask about
// them here: a guard of the mode already held in an enclosing block
// (enclosingGuard), the destructor of the class whose member switches it (a
// RAII helper: destructorSetsMode).
//
// The paths are walked on the CFG of the code body that holds the enter call
// (the function body or a lambda body), which ExecutionOrder::graph() hands
// out: the function's one ExecutionOrder (FunctionFacts::order()) builds every
// CFG, lambda bodies' on first use, and this file builds none of its own.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/AST/Stmt.h"
#include "clang/Analysis/CFG.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include <utility>
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

class DefUse;
class FunctionFacts;

/// What a call does to the mode a check follows.
enum class ModeCall {
  None,    ///< not a setter of this mode
  Enters,  ///< switches into the mode that must be undone
  Leaves,  ///< switches back
  Unknown, ///< a setter whose value is not a constant (restoring a saved state)
};
using ModeClassifier = llvm::function_ref<ModeCall(const CallExpr *)>;
using CallPredicate = llvm::function_ref<bool(const CallExpr *)>;

/// True for Leaves and Unknown: a path that reaches such a call is restored.
inline bool isModeRestore(ModeCall K) { return K == ModeCall::Leaves || K == ModeCall::Unknown; }

/// A call that may throw: its callee is not declared non-throwing (every
/// LibTorch operation may throw c10::Error), or there is no known callee.
/// Builtins and calls \p NeverThrows accepts do not throw.
bool mayThrow(const CallExpr *Call, CallPredicate NeverThrows);

/// What the paths from the call that enters the mode show.
struct ModePaths {
  llvm::SmallVector<const CFGBlock *, 2> Escapes;  ///< blocks that leave still in the mode
  llvm::SmallVector<const CallExpr *, 8> Throwing; ///< calls that may throw before the restore
  const CallExpr *Restore = nullptr;               ///< a restoring call reached
  bool DidWork = false;                            ///< a call \p CountsAsWork runs in the mode
};

/// A boolean variable and the value it holds on every path from a call.
using KnownCondition = std::pair<const VarDecl *, bool>;

/// The conditions known where \p Enter runs: each `if (flag)` / `if (!flag)`
/// around it (inside \p CodeBody) whose flag is a bool parameter or local
/// that \p Defs never sees written, with the value the branch taken implies.
/// `if (on) set(...); ... if (on) restore(...);` then restores on every path.
llvm::SmallVector<KnownCondition, 2> knownConditions(const Stmt *Enter, const ParentMap &PM,
                                                     const Stmt *CodeBody, const DefUse &Defs);

/// Follows the paths of \p Graph (ExecutionOrder::graph() of the code body
/// holding \p Enter) from \p Enter to the first restoring call or
/// the exit. A block ending in a [[noreturn]] call ends the program, not the
/// function, and is no escape. At an `if` on a flag of \p Known only the
/// branch its value takes is followed.
ModePaths followModePaths(const CFG &Graph, const CallExpr *Enter, ModeClassifier Classify,
                          CallPredicate NeverThrows, CallPredicate CountsAsWork,
                          llvm::ArrayRef<KnownCondition> Known = {});

/// True when \p S contains a setter of the mode (any ModeCall but None).
bool containsModeCall(const Stmt *S, ModeClassifier Classify);

/// The first (in source order) of \p Paths.Throwing whose exception no
/// handler of a try block around it (inside \p CodeBody) answers with a
/// setter of the mode; null when there is none.
const CallExpr *firstUnhandledThrow(const ModePaths &Paths, const Stmt *CodeBody,
                                    const ParentMap &PM, ModeClassifier Classify,
                                    const SourceManager &SM);

/// The statement an escaping block ends with: its terminator (a return, a
/// throw) or its last statement; null when it has none.
const Stmt *escapeStatement(const CFGBlock &Exit);

/// The statements around an enter call that a guard scope can replace: the
/// enter is a statement of a block and the first restoring call after it is
/// a later statement of the same block.
struct ModeScope {
  enum State { Fixable, NoPair, UsedAfter };
  State Result = NoPair;
  const Stmt *EnterStmt = nullptr;                ///< the enter call as a statement
  const Stmt *RestoreStmt = nullptr;              ///< the restoring call as a statement
  llvm::SmallVector<const Stmt *, 8> Between;     ///< statements between the pair
  llvm::SmallVector<const Stmt *, 8> After;       ///< statements after the restore
};
/// Fixable when the pair exists, nothing between sets the mode again or holds
/// a label, and nothing after the restore uses a variable declared between.
ModeScope findModeScope(const CallExpr *Enter, const ParentMap &PM, ModeClassifier Classify);

/// The fix-its that turn a Fixable \p Scope into a guard scope: the text
/// \p EnterRange covers (the enter call, or more) becomes \p GuardDecl (a
/// declaration without ';') and the restore goes away; when statements follow
/// the restore, the pair becomes an inner block. Empty when a range is in a
/// macro or invalid.
llvm::SmallVector<FixItHint, 2> guardScopeFixes(const ModeScope &Scope, CharSourceRange EnterRange,
                                                llvm::StringRef GuardDecl,
                                                const SourceManager &SM,
                                                const LangOptions &LangOpts);

/// The calls that \p Arg (a variable or a data member of `this`) got its
/// value from, when every one is a call \p IsGetter accepts: for a local, its
/// initialiser and the plain assignments to it (\p Defs); for a data member,
/// the plain assignments to it in \p Body. Empty when \p Arg names neither,
/// when it has no such source, or when a source is something else. A local
/// handed by non-const reference to a function defined here still qualifies
/// when the callee modifies none of the parameters bound to it (\p CalleeDefs:
/// the callee's definitions, from the core's facts of it).
using DefUseOf = llvm::function_ref<const DefUse &(const FunctionDecl *)>;
llvm::SmallVector<const CallExpr *, 2> savedStateGetters(const Expr *Arg, const Stmt *Body,
                                                         const DefUse &Defs, CallPredicate IsGetter,
                                                         DefUseOf CalleeDefs);

/// The variable of a guard (a type \p IsGuard accepts) declared by an earlier
/// statement of a block that encloses \p S, up to \p CodeBody; null when none.
const VarDecl *enclosingGuard(const Stmt *S, const ParentMap &PM, const Stmt *CodeBody,
                              llvm::function_ref<bool(QualType)> IsGuard);

/// True when \p FD is a member function (a constructor included) of a class
/// whose destructor calls a setter of the mode: a RAII helper that switches
/// the mode back when it dies.
bool destructorSetsMode(const FunctionDecl *FD, ModeClassifier Classify);

/// \p Base, or \p Base followed by '_'s, so that it is none of \p Taken.
std::string freshName(std::string Base, llvm::ArrayRef<std::string> Taken);

/// The names declared in the body of \p Facts (for freshName).
llvm::SmallVector<std::string, 8> declaredNames(const FunctionFacts &Facts);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_MODERESTORE_H
