//===--- HistoryInContainerCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H
#define LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H

#include "utils/CoreCheck.h"

namespace clang::tidy::torch_check {

/// Finds containers that outlive a loop and collect, iteration after
/// iteration, tensors that carry autograd history (`losses.push_back(loss)`).
///
/// For the user-facing documentation see:
/// docs/checks/torch-history-in-container.md
class HistoryInContainerCheck : public CoreCheck {
public:
  HistoryInContainerCheck(StringRef Name, ClangTidyContext *Context,
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

  /// `c.push_back(e)`, `c[k] = e`, ...: defined in the .cpp file.
  struct Insertion;

private:
  /// A container data member filled in a method called from a loop. False
  /// when the value's history could not be traced into the member (the caller
  /// judges the insertion on its own); true when the insertion was reported
  /// (or left alone on purpose). \p ReportWithoutChain: report it even when no
  /// loop of the file calls the method.
  /// A member every reader takes detached (AnalysisCore::fieldReadOnlyDetached):
  /// reported (deferred until the callers' guards are known); false when
  /// the member is read otherwise somewhere.
  bool reportReadOnlyDetached(const FunctionDecl *FD, const Insertion &I, const FieldDecl *Field,
                              const Expr *Value, const Expr *Source, ASTContext &Ctx);
  /// The finding on \p Container (a member, or a local emptied at the
  /// update) every read of which detaches it, \p Read the first.
  void reportReadOnlyDetached(const FunctionDecl *FD, const Insertion &I,
                              const ValueDecl *Container, SourceLocation Read, const Expr *Value,
                              const Expr *Source, ASTContext &Ctx);
  bool checkMemberInsertion(const FunctionDecl *FD, const Insertion &I, const FieldDecl *Field,
                            const HistoryAnalysis &History, ASTContext &Ctx,
                            bool ReportWithoutChain);

  /// How many levels of calls the member and guard chains follow. The
  /// findings wait for the end of the translation unit
  /// (CoreCheck::deferUntilCallersKnown: a function whose every call site is
  /// guarded computes no history), asked of the core's one call graph.
  const unsigned CallDepth;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H
