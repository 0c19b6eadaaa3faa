//===--- Matchers.cpp - libtorch-tidy -------------------------------------===//

#include "Matchers.h"
#include "TorchNames.h"

#include "clang/AST/DeclFriend.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

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

// The walk is a worklist over declaration contexts with a visited set, never
// a recursion: the user's code decides how deep contexts nest and whether
// they lead back to themselves. A class template that befriends every
// instantiation of itself (`template <typename U> friend class Box;`, as
// nlohmann/json's basic_json does) names its own template again inside each
// of its specialisations; each context is entered once. Friend declarations
// are followed only when they declare a function (a friend function defined
// in the class): a friend class or class template is a redeclaration of a
// class defined, and walked, where it is defined. The stack of open contexts
// keeps the order of a recursive walk (declaration order, each context's
// functions before the declarations after it).
void forEachUserFunction(const DeclContext *DC, const SourceManager &SM,
                         llvm::function_ref<void(const FunctionDecl *)> Visit) {
  struct Open {
    DeclContext::decl_iterator It, End;
  };
  llvm::SmallVector<Open, 16> Stack;
  llvm::SmallPtrSet<const DeclContext *, 32> Entered;
  llvm::SmallPtrSet<const FunctionDecl *, 32> Visited;
  // Opens the contexts of \p Inner in order (the first is walked first).
  auto Enter = [&](llvm::ArrayRef<const DeclContext *> Inner) {
    for (const DeclContext *C : llvm::reverse(Inner))
      if (C && Entered.insert(C).second)
        Stack.push_back({C->decls_begin(), C->decls_end()});
  };
  auto VisitOnce = [&](const FunctionDecl *FD) {
    if (FD && Visited.insert(FD).second)
      visitFunction(FD, Visit);
  };
  Enter({DC});
  while (!Stack.empty()) {
    Open &Top = Stack.back();
    if (Top.It == Top.End) {
      Stack.pop_back();
      continue;
    }
    const Decl *D = *Top.It++;
    if (D->isImplicit())
      continue;
    SourceLocation Loc = D->getLocation();
    if (Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      continue;
    if (const auto *Friend = dyn_cast<FriendDecl>(D)) {
      D = Friend->getFriendDecl();
      if (!isa_and_nonnull<FunctionDecl, FunctionTemplateDecl>(D))
        continue;
    }
    if (const auto *FT = dyn_cast<FunctionTemplateDecl>(D)) {
      VisitOnce(FT->getTemplatedDecl());
      for (const FunctionDecl *Spec : FT->specializations())
        VisitOnce(Spec);
      Enter({FT->getTemplatedDecl()}); // local classes
      continue;
    }
    if (const auto *CT = dyn_cast<ClassTemplateDecl>(D)) {
      // The pattern, then the members its implicit and explicit
      // instantiations define (an explicit specialisation is a declaration
      // of its own, visited there).
      llvm::SmallVector<const DeclContext *, 8> Inner{CT->getTemplatedDecl()};
      for (const ClassTemplateSpecializationDecl *Spec : CT->specializations())
        if (Spec->getSpecializationKind() != TSK_ExplicitSpecialization)
          Inner.push_back(Spec);
      Enter(Inner);
      continue;
    }
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      VisitOnce(FD);
    if (const auto *Inner = dyn_cast<DeclContext>(D))
      Enter({Inner});
  }
}

} // namespace clang::tidy::torch_check
