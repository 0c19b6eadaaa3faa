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
/// What a call does to training: the one classification of backward passes,
/// optimizer steps and zero_grad calls that the analysis core's facts
/// (Fact::Backward, Grad, Step, ZeroGrad) and the training-loop events
/// (TrainingEvent) share.
enum class TrainingCall {
  None,
  Backward,          ///< loss.backward(), torch::autograd::backward(...)
  Grad,              ///< torch::autograd::grad(...)
  Step,              ///< optimizer.step(...) on a class derived from torch::optim::Optimizer
  OptimizerZeroGrad, ///< optimizer.zero_grad()
  ModuleZeroGrad,    ///< module->zero_grad()
};
TrainingCall classifyTrainingCall(const CallExpr *Call);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TORCHMEMBERS_H
