//===--- Matchers.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// The coarse top-level matcher every check starts from: function definitions
// written by the user (outside system headers and LibTorch's namespaces).
// Checks analyse inside those bodies instead of matching every call in the
// translation unit: <torch/torch.h> holds hundreds of thousands of nodes.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H

#include "clang/ASTMatchers/ASTMatchers.h"

namespace clang::tidy::torch_check {

/// True for a function definition whose body the checks analyse: not in a
/// LibTorch namespace, not implicit, not a lambda's call operator (lambdas are
/// analysed as part of the function that spells them), and for templates the
/// instantiations (resolved types) or, where none exists, the pattern.
bool isAnalyzedUserFunction(const FunctionDecl &FD);

namespace matchers {
AST_MATCHER(FunctionDecl, isAnalyzedUserFunction) {
  return ::clang::tidy::torch_check::isAnalyzedUserFunction(Node);
}

/// functionDecl() of the user's function definitions, bound to \p Id.
inline ast_matchers::internal::BindableMatcher<Decl> userFunctionDefinition() {
  using namespace ast_matchers;
  return functionDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                      isAnalyzedUserFunction());
}
} // namespace matchers

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
