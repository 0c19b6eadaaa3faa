//===--- HistoryInContainerCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H
#define LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H

#include "utils/History.h"

#include "clang-tidy/ClangTidyCheck.h"
#include <functional>
#include <vector>

namespace clang::tidy::torch_check {

/// Finds containers that outlive a loop and collect, iteration after
/// iteration, tensors that carry autograd history (`losses.push_back(loss)`).
///
/// For the user-facing documentation see:
/// docs/checks/torch-history-in-container.md
class HistoryInContainerCheck : public ClangTidyCheck {
public:
  HistoryInContainerCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context) {
    Sites.setMaxDepth(Options.getLocalOrGlobal(CallDepthOption, DefaultCallDepth));
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override {
    Options.store(Opts, CallDepthOption, Sites.maxDepth());
  }
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus17;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

  /// `c.push_back(e)`, `c[k] = e`, ...: defined in the .cpp file.
  struct Insertion;

private:
  /// A container data member filled in a method called from a loop. False
  /// when the value's history could not be traced into the member (the caller
  /// judges the insertion on its own); true when the insertion was reported
  /// (or left alone on purpose). \p ReportWithoutChain: report it even when no
  /// loop of the file calls the method.
  bool checkMemberInsertion(const FunctionDecl *FD, const Insertion &I, const FieldDecl *Field,
                            const HistoryAnalysis &History,
                            std::unique_ptr<HistoryAnalysis> &ParamHistory, ASTContext &Ctx,
                            bool ReportWithoutChain);

  HistoryFunctions Functions;
  /// Also holds the findings until the end of the TU: a function whose every
  /// call site is guarded computes no history.
  CallSiteGuards Sites;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_HISTORYINCONTAINERCHECK_H
