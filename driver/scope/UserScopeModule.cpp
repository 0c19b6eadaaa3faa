//===--- UserScopeModule.cpp - clang-tidy walks the user's code only ------===//
//
// A clang-tidy module of the driver (LibTorchTidyScope.so), loaded beside the
// plugin when every enabled check is a torch- check. Its one check,
// libtorch-tidy-user-scope, matches the translation unit first and narrows the
// AST walk of clang-tidy's MatchFinder to the top-level declarations outside
// system headers (ASTContext::setTraversalScope).
//
// Why: clang-tidy 19 walks every node of the translation unit, <torch/torch.h>
// included, although the torch- checks look only at the user's functions
// (checks/utils/Matchers.h). With a precompiled LibTorch header that walk is
// worse than the parse it replaces, because it deserializes the whole header.
// The torch- checks never visit system-header declarations through the walk
// (they start from one translation-unit match that skips them), so their
// findings do not change; other checks might, so the narrowing is off as soon
// as the configuration enables anything but torch- checks (and compiler
// diagnostics, which do not come from the walk).
//
//===----------------------------------------------------------------------===//
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR < 22 // 22 moved the registry into ClangTidyModule.h
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/StringExtras.h"

namespace clang::tidy::libtorch_tidy_scope {

using namespace ast_matchers;

/// True when every check the glob list enables is a torch- check, this one,
/// or a compiler diagnostic. Later globs override earlier ones, so only the
/// positive globs after the last "-*" can enable anything.
static bool onlyTorchChecks(llvm::StringRef Globs, llvm::StringRef Self) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Globs.split(Parts, ',', -1, false);
  size_t First = 0;
  for (size_t I = 0; I < Parts.size(); ++I)
    if (Parts[I].trim() == "-*")
      First = I + 1;
  for (size_t I = First; I < Parts.size(); ++I) {
    llvm::StringRef P = Parts[I].trim();
    if (P.empty() || P.starts_with("-"))
      continue;
    if (!P.starts_with("torch-") && P != Self && !P.starts_with("clang-diagnostic-"))
      return false;
  }
  return true;
}

class UserScopeCheck : public ClangTidyCheck {
public:
  UserScopeCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context), Context(Context) {}
  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(translationUnitDecl().bind("tu"), this);
  }
  void check(const MatchFinder::MatchResult &Result) override {
    const ClangTidyOptions &Options = Context->getOptions();
    if (!Options.Checks || !onlyTorchChecks(*Options.Checks, getID()))
      return;
    ASTContext &AST = *Result.Context;
    const SourceManager &SM = AST.getSourceManager();
    // The declarations parsed in this run (noload: those of a precompiled
    // header stay unread; all are in system headers, and the torch- checks do
    // their own walk of the translation unit anyway).
    std::vector<Decl *> Scope;
    for (Decl *D : AST.getTranslationUnitDecl()->noload_decls())
      if (!SM.isInSystemHeader(D->getLocation()))
        Scope.push_back(D);
    AST.setTraversalScope(Scope);
  }

private:
  ClangTidyContext *Context;
};

class UserScopeModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<UserScopeCheck>("libtorch-tidy-user-scope");
  }
};

static ClangTidyModuleRegistry::Add<UserScopeModule>
    X("libtorch-tidy-scope", "Narrows clang-tidy's AST walk to the user's code for the torch- checks.");

} // namespace clang::tidy::libtorch_tidy_scope
