//===--- FieldReads.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// How a translation unit reads the data members of the user's classes that
// hold tensors in a container (and how a function reads a local one) (a rollout's
// `std::vector<torch::Tensor> logProbs`): whether every read it makes takes the tensors without
// their history. torch-history-in-container asks it: a tensor with history stored in a member that
// every reader detaches keeps its graph alive for nothing, and detaching it where it is stored
// changes no value anyone reads.
//
// Design:
//   - A use of the member is an insertion or housekeeping (push_back,
//     emplace_back, insert, clear, size, empty, reserve, pop_*, erase,
//     resize: neutral), a detached read (`torch::cat(m).detach()`,
//     `torch::stack(m).detach()`, `m[i].detach()`, `m[i].item()`), or
//     anything else (copied, iterated, passed, returned, read with its
//     history: "other"). Lambda bodies count.
//   - The member references of the unit's user functions' facts (the
//     core's one walk), on the first question (the checks' or the summaries'
//     writer's): the members it reads only detached, those it reads
//     otherwise. The summaries record
//     both (SummaryDocument::FieldsReadDetached / FieldsReadOtherwise), so
//     that the link answers for the whole project.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_FIELDREADS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_FIELDREADS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::torch_check {

class FunctionFacts;

/// A data member of a class of the user's that holds tensors in a container
/// (a std::vector, deque, map... of tensors), not a tensor itself.
bool isTensorContainerField(const FieldDecl *F);

class FieldReads {
public:
  struct Reads {
    unsigned Detached = 0; ///< detached reads
    bool Other = false;    ///< some other use
    SourceLocation FirstDetached;
  };
  using FactsFn = llvm::function_ref<const FunctionFacts &(const FunctionDecl *)>;
  /// Reads the member references of \p Functions (the unit's user
  /// functions) from their facts.
  FieldReads(llvm::ArrayRef<const FunctionDecl *> Functions, FactsFn FactsOf, ASTContext &Ctx);
  /// The uses of \p F in the unit; null when it has none.
  const Reads *of(const FieldDecl *F) const;
  /// Every member with a use in the unit.
  const llvm::DenseMap<const FieldDecl *, Reads> &all() const { return ByField; }

private:
  llvm::DenseMap<const FieldDecl *, Reads> ByField;
};

/// The uses of \p V, a local container of tensors, in \p Body (the
/// function's body, its lambdas included), classified as a member's are.
FieldReads::Reads localReads(const VarDecl *V, const Stmt *Body, ASTContext &Ctx);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FIELDREADS_H
