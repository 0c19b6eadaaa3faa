//===--- Matchers.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// The user's function definitions the checks analyse: outside system headers
// and LibTorch's namespaces. Checks analyse inside those bodies instead of
// matching every call in the translation unit: <torch/torch.h> holds hundreds
// of thousands of nodes.
//
// The list is built by one walk of the declarations outside system headers
// (the hundreds of thousands of FunctionDecls of LibTorch's headers are never
// visited), once per translation unit, and the analysis core's pass over the
// functions (FunctionDispatch.h) calls every check with each of them.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H

#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::torch_check {

/// True for a function definition whose body the checks analyse: not in a
/// LibTorch namespace, not implicit, not a lambda's call operator (lambdas are
/// analysed as part of the function that spells them), and for templates the
/// instantiations (resolved types) or, where none exists, the pattern.
bool isAnalyzedUserFunction(const FunctionDecl &FD);

/// Calls \p Visit for every definition in \p DC (recursively: namespaces,
/// classes, class templates, function templates and their instantiations,
/// friends, local classes) that isAnalyzedUserFunction accepts, skipping every
/// declaration whose location is in a system header.
void forEachUserFunction(const DeclContext *DC, const SourceManager &SM,
                         llvm::function_ref<void(const FunctionDecl *)> Visit);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
