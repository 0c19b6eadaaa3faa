//===--- Matchers.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// The coarse top-level matcher every check starts from: function definitions
// written by the user (outside system headers and LibTorch's namespaces).
// Checks analyse inside those bodies instead of matching every call in the
// translation unit: <torch/torch.h> holds hundreds of thousands of nodes.
//
// The matcher is a single translationUnitDecl() match that walks the
// declarations outside system headers and binds each user function: clang-tidy
// then calls check() once per function, and the hundreds of thousands of
// FunctionDecls of LibTorch's headers are never visited by a matcher (each
// check pays for one walk of the user's declarations, not one matcher test per
// FunctionDecl of the translation unit).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H

#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <memory>
#include <vector>

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

/// The user's function definitions of one translation unit
/// (forEachUserFunction), listed on first use and shared by the top-level
/// matchers of every check: one walk of the declarations per translation unit,
/// not one per check.
class UserFunctionList {
public:
  const std::vector<const FunctionDecl *> &get(const TranslationUnitDecl &TU,
                                               const SourceManager &SM);

private:
  const TranslationUnitDecl *For = nullptr;
  std::vector<const FunctionDecl *> Functions;
};

/// The list the matchers built now share. The checks of a translation unit,
/// their matchers and so the list live as long as that unit's analysis: the
/// next unit's matchers get a new one.
std::shared_ptr<UserFunctionList> sharedUserFunctionList();

namespace matchers {
/// Matches the translation unit once and binds \p Id to each of the user's
/// function definitions (one match, so one check() call, per function).
AST_MATCHER_P2(TranslationUnitDecl, forEachUserFunctionDefinition, std::string, Id,
               std::shared_ptr<UserFunctionList>, List) {
  ast_matchers::internal::BoundNodesTreeBuilder Result;
  bool Matched = false;
  for (const FunctionDecl *FD : List->get(Node, Finder->getASTContext().getSourceManager())) {
    ast_matchers::internal::BoundNodesTreeBuilder Match(*Builder);
    Match.setBinding(Id, DynTypedNode::create(*FD));
    Result.addMatch(Match);
    Matched = true;
  }
  *Builder = std::move(Result);
  return Matched;
}

/// A top-level matcher that binds each user function definition to \p Id
/// as a FunctionDecl (one match, so one check() call, per function). The
/// checks on the analysis core get the same calls from the core's one pass
/// over the functions instead (FunctionDispatch.h); torch-dataloader-defaults,
/// which needs no core, uses this.
inline ast_matchers::internal::BindableMatcher<Decl> userFunctionDefinitions(llvm::StringRef Id) {
  return ast_matchers::translationUnitDecl(
      forEachUserFunctionDefinition(Id.str(), sharedUserFunctionList()));
}
} // namespace matchers

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_MATCHERS_H
