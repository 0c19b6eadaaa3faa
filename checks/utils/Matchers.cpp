//===--- Matchers.cpp - libtorch-tidy -------------------------------------===//

#include "Matchers.h"
#include "TorchNames.h"

#include "clang/AST/DeclFriend.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_check {

/// True when \p MD is a member of a class template's pattern that some
/// specialisation of the template instantiates with a body.
static bool isInstantiatedMemberPattern(const CXXMethodDecl *MD) {
  const auto *RD = dyn_cast<CXXRecordDecl>(MD->getDeclContext());
  const ClassTemplateDecl *CT = RD ? RD->getDescribedClassTemplate() : nullptr;
  if (!CT || !MD->getDeclName().isIdentifier())
    return false;
  const FunctionDecl *Pattern = MD->getCanonicalDecl();
  for (const ClassTemplateSpecializationDecl *Spec : CT->specializations())
    for (const NamedDecl *ND : Spec->lookup(MD->getDeclName()))
      if (const auto *Inst = dyn_cast<CXXMethodDecl>(ND))
        if (const FunctionDecl *From = Inst->getInstantiatedFromMemberFunction();
            From && From->getCanonicalDecl() == Pattern && Inst->hasBody())
          return true;
  return false;
}

// Templates: function templates and the members of class templates are
// analysed through their instantiations (types resolved) or, where none
// exists, as written. A finding in a template's body is then made once per
// instantiation at the same place with the same text, and clang-tidy reports
// it once.
bool isAnalyzedUserFunction(const FunctionDecl &FD) {
  if (FD.isImplicit() || FD.isDefaulted() || FD.isDeleted() || !FD.hasBody() ||
      !isa_and_nonnull<CompoundStmt>(FD.getBody()))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD))
    if (MD->getParent()->isLambda())
      return false;
  if (isInLibraryNamespace(&FD))
    return false;
  // A member of a class template: each instantiated member is analysed (its
  // types resolved: `model->forward(x)` on a `Model model` member is a
  // forward pass), the pattern only when no specialisation instantiates it.
  if (const auto *MD = dyn_cast<CXXMethodDecl>(&FD))
    if (isInstantiatedMemberPattern(MD))
      return false;
  // A function template's pattern is analysed only when nothing instantiates
  // it; otherwise each instantiation is (duplicates are merged by clang-tidy).
  if (const FunctionTemplateDecl *FT = FD.getDescribedFunctionTemplate())
    if (!FT->specializations().empty())
      return false;
  return true;
}

static void visitFunction(const FunctionDecl *FD,
                          llvm::function_ref<void(const FunctionDecl *)> Visit) {
  if (FD && FD->isThisDeclarationADefinition() && isAnalyzedUserFunction(*FD))
    Visit(FD);
}

static void visitFunctionTemplate(const FunctionTemplateDecl *FT,
                                  llvm::function_ref<void(const FunctionDecl *)> Visit) {
  visitFunction(FT->getTemplatedDecl(), Visit);
  for (const FunctionDecl *Spec : FT->specializations())
    visitFunction(Spec, Visit);
}

void forEachUserFunction(const DeclContext *DC, const SourceManager &SM,
                         llvm::function_ref<void(const FunctionDecl *)> Visit) {
  for (const Decl *D : DC->decls()) {
    if (D->isImplicit())
      continue;
    SourceLocation Loc = D->getLocation();
    if (Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      continue;
    if (const auto *Friend = dyn_cast<FriendDecl>(D)) {
      D = Friend->getFriendDecl();
      if (!D)
        continue;
    }
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D)) {
      visitFunctionTemplate(FT, Visit);
      forEachUserFunction(FT->getTemplatedDecl(), SM, Visit); // local classes
      continue;
    }
    if (const auto *CT = dyn_cast<ClassTemplateDecl>(D)) {
      forEachUserFunction(CT->getTemplatedDecl(), SM, Visit);
      // The members its implicit and explicit instantiations define (an
      // explicit specialisation is a declaration of its own, visited there).
      for (const ClassTemplateSpecializationDecl *Spec : CT->specializations())
        if (Spec->getSpecializationKind() != TSK_ExplicitSpecialization)
          forEachUserFunction(Spec, SM, Visit);
      continue;
    }
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      visitFunction(FD, Visit);
    if (const auto *Inner = dyn_cast<DeclContext>(D))
      forEachUserFunction(Inner, SM, Visit);
  }
}

} // namespace clang::tidy::torch_check
