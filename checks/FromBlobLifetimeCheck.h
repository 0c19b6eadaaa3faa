//===--- FromBlobLifetimeCheck.h - libtorch-tidy ----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_FROMBLOBLIFETIMECHECK_H
#define LIBTORCH_TIDY_CHECKS_FROMBLOBLIFETIMECHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds tensors made by torch::from_blob over memory whose owner (a local
/// std::vector, std::string, std::array, C array or std::unique_ptr, a buffer of
/// a local object, memory deleted later in the function) dies while the tensor
/// still escapes: returned, stored in a member, a container or an outer
/// variable, or captured by a lambda that does.
///
/// For the user-facing documentation see:
/// docs/checks/torch-from-blob-lifetime.md
class FromBlobLifetimeCheck : public CoreCheck {
public:
  FromBlobLifetimeCheck(StringRef Name, ClangTidyContext *Context,
                         std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_FROMBLOBLIFETIMECHECK_H
