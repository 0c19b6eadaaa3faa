//===--- ValueUses.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Where a local's value goes inside its function: whether every use of it,
// and of every local computed from it, only reads it. torch-eval-without-no-
// grad asks it for a forward pass in training code that initialises a local
// (`auto test_out = net->forward(test_x);` read by `item()` and printing):
// such a value trains nothing, so the graph recorded for it is kept for
// nothing, and a guard around its block changes no value anyone reads.
//
// Design:
//   - A use ends in a read (item(), detach and the other operations that cut
//     history, printing with `<<`, a comparison or a logical operator, a
//     LibTorch call whose result holds no tensor: `out.size(0)`), in the
//     value of another local (a declaration's initialiser, an assignment to
//     a local; that local's uses are then followed), or elsewhere (returned,
//     stored in a member, a parameter or a container, handed to a function
//     that may keep it, a backward pass): then the value is not only read.
//   - LibTorch's tensor operations and copies carry the value on to their
//     result; a call of the user's function does when the caller's PassesOn
//     says so (a function of the file that trains nothing, keeps nothing and
//     whose parameter reaches no backward pass: a member wrapping the
//     criterion). The caller decides it from the summaries (layer 3 and the
//     core), which this module does not reach.
//   - The uses of a local are its references in the body's one walk
//     (FunctionFacts::references); a reference inside a type (`decltype(v)`)
//     is not evaluated and does not count.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_VALUEUSES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_VALUEUSES_H

#include "FunctionFacts.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

namespace clang::tidy::torch_check {

class ValueUses {
public:
  /// A call of the user's function carries \p Arg (null: whichever argument)
  /// on to its result and keeps nothing.
  using PassesOnFn = llvm::function_ref<bool(const CallExpr *Call, const Stmt *Arg)>;
  using Locals = llvm::SmallPtrSet<const VarDecl *, 8>;

  ValueUses(const FunctionFacts &Facts, ASTContext &Ctx, PassesOnFn PassesOn)
      : Facts(Facts), Ctx(Ctx), PassesOn(PassesOn) {}

  /// The locals \p V's value reaches (\p V included) when every use of each
  /// is a read or flows into another local of the set; std::nullopt when
  /// some use lets the value go elsewhere, or a local of the set is a
  /// parameter, a reference, a range variable (or a range-for's hidden
  /// variable), captured by a lambda, or modified through a reference or
  /// pointer (at most 16 locals are followed).
  std::optional<Locals> onlyRead(const VarDecl *V);

  /// The statements of \p Block from \p From on compute only the locals of
  /// \p Reached: they declare or assign no other local tensor and run no
  /// forward pass but \p Forward, no backward pass, optimizer step or call of
  /// the user's code that does not pass its value on. A guard placed right
  /// before \p From then covers nothing else.
  bool tailComputesOnly(const CompoundStmt *Block, const Stmt *From, const Locals &Reached,
                        const CallExpr *Forward);

private:
  bool endsInRead(const Expr *Use, Locals &Next);
  bool capturedByLambda(const VarDecl *V) const;

  const FunctionFacts &Facts;
  ASTContext &Ctx;
  PassesOnFn PassesOn;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_VALUEUSES_H
