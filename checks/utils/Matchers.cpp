//===--- Matchers.cpp - libtorch-tidy -------------------------------------===//

#include "Matchers.h"
#include "TorchNames.h"

#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::torch_check {

bool isAnalyzedUserFunction(const FunctionDecl &FD) {
  if (FD.isImplicit() || FD.isDefaulted() || FD.isDeleted() || !FD.hasBody() ||
      !isa_and_nonnull<CompoundStmt>(FD.getBody()))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD))
    if (MD->getParent()->isLambda())
      return false;
  if (isInLibraryNamespace(&FD))
    return false;
  // Members of instantiated class templates: the pattern is analysed instead.
  if (FD.getInstantiatedFromMemberFunction())
    return false;
  // A function template's pattern is analysed only when nothing instantiates
  // it; otherwise each instantiation is (duplicates are merged by clang-tidy).
  if (const FunctionTemplateDecl *FT = FD.getDescribedFunctionTemplate())
    if (!FT->specializations().empty())
      return false;
  return true;
}

} // namespace clang::tidy::torch_check
