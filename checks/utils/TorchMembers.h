//===--- TorchMembers.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// Predicates on calls of LibTorch's members that the analysis core
// (AnalysisCore.h) classifies: in-place writes, views and syncs of a tensor,
// standard containers' inserts, zero_grad, an optimizer's step. Like every
// LibTorch name, the member names are spelled once, in TorchNames.cpp; this
// header only declares the questions.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TORCHMEMBERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TORCHMEMBERS_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch_check {

/// What a member function of at::Tensor does to the tensor it is called on
/// (the names are listed once, in TorchNames.cpp).
enum class TensorMethodKind {
  Other,
  InPlace, ///< writes the tensor's storage: add_, copy_, index_put_, zero_, ...
  View,    ///< returns a view sharing its storage: view, select, narrow, t, ...
  Sync,    ///< waits for the device: item(), cpu(), to(kCPU)
  Detach,  ///< detach(), detach_()
};
TensorMethodKind classifyTensorMethod(const CallExpr *Call);
/// The name of the at::Tensor / at::TensorBase member function \p Call calls,
/// or "" when it is not one.
llvm::StringRef tensorMethodName(const CallExpr *Call);
/// A standard container's insertion member (push_back, emplace_back, insert,
/// emplace, push_front, emplace_front, push).
bool isContainerInsertCall(const CallExpr *Call);
/// optimizer.zero_grad() on a torch::optim::Optimizer, or module->zero_grad().
bool isZeroGradCall(const CallExpr *Call);
/// optimizer.step(...) on a class derived from torch::optim::Optimizer
/// (through `.`, `->`, a pointer or a smart pointer).
bool isOptimizerStepCall(const CallExpr *Call);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TORCHMEMBERS_H
