//===--- AccumulatedHistoryCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_ACCUMULATEDHISTORYCHECK_H
#define LIBTORCH_TIDY_CHECKS_ACCUMULATEDHISTORYCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds tensors that outlive a loop and accumulate, iteration after
/// iteration, values that carry autograd history (`total_loss += loss`).
///
/// For the user-facing documentation see:
/// docs/checks/torch-accumulated-history.md
class AccumulatedHistoryCheck : public CoreCheck {
public:
  AccumulatedHistoryCheck(StringRef Name, ClangTidyContext *Context,
                          std::shared_ptr<AnalysisCore> Core = nullptr)
      : CoreCheck(Name, Context, std::move(Core)),
        CallDepth(std::min(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth), MaxCallDepth)) {}
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    Options.store(Opts, CallDepthOption, CallDepth);
  }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) override;
  void reportAtEndOfUnit() override;

private:
  /// A data member accumulated in (or, with \p Copy, copied into by index:
  /// `loss_[e] = v`, `loss_.index_put_({e}, v)`) a method called from a loop;
  /// \p Written is the tensor as written.
  void checkMemberUpdate(const FunctionDecl *FD, const Expr *Stmt, const Expr *Written,
                         const Expr *Value, bool Copy, const FieldDecl *Field,
                         const HistoryAnalysis &History, ASTContext &Ctx);

  /// Calls, once per iteration of a loop, of methods defined in another
  /// translation unit whose linked summary accumulates history into a member
  /// (FunctionSummary::MemberAccumulations).
  void checkLinkedMemberCalls(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx);

  /// How many levels of calls the member and guard chains follow. The
  /// findings wait for the end of the translation unit
  /// (CoreCheck::deferUntilCallersKnown: a function whose every call site is
  /// guarded computes no history), asked of the core's one call graph.
  const unsigned CallDepth;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_ACCUMULATEDHISTORYCHECK_H
