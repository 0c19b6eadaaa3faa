//===--- CoreCheck.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// The base of the checks that query the analysis core (AnalysisCore.h).
//
// Design: one AnalysisCore per clang-tidy run (ClangTidyContext): the
// factories of the checks on the core hand the checks of a run the same
// shared pointer (TorchTidyModule.cpp's RunCores; clangd runs several at
// once). Every check resets the core's translation-unit state
// when a new translation unit starts; the core also compares the ASTContext
// it is given, so a stale entry is never read.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CORECHECK_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CORECHECK_H

#include "AnalysisCore.h"
#include "FunctionDispatch.h"
#include "SummaryLocation.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::torch_check {

class CoreCheck : public ClangTidyCheck {
public:
  CoreCheck(StringRef Name, ClangTidyContext *Context, std::shared_ptr<AnalysisCore> Core)
      : ClangTidyCheck(Name, Context),
        Core(Core ? std::move(Core) : std::make_shared<AnalysisCore>()) {
    // Without the option, libtorch-tidy-clangd reads the build's latest
    // linked summaries (SummaryLocation.h); clang-tidy reads none.
    std::string Input = Options.getLocalOrGlobal(SummariesOption, "").str();
    if (Input.empty())
      Input = locatedSummaries(Context->getCurrentFile());
    std::string Error = this->Core->configure(Input,
                                              Options.getLocalOrGlobal(SummariesOutputOption, ""));
    if (!Error.empty())
      configurationDiag("%0") << Error;
  }
  ~CoreCheck() override { Core->dispatch().withdraw(this); }
  void onStartOfTranslationUnit() override { Core->beginTranslationUnit(); }
  /// The check's findings that wait for the whole unit
  /// (reportAtEndOfUnit), then the unit's summaries when TorchSummariesOutput
  /// asks for them (AnalysisCore::endTranslationUnit), whichever checks run.
  void onEndOfTranslationUnit() final {
    reportAtEndOfUnit();
    std::string Error = Core->endTranslationUnit();
    if (!Error.empty())
      configurationDiag("%0") << Error;
  }

  /// The global options of the analysis across translation units: the
  /// linked summaries to read, the file to write this unit's summaries to.
  static constexpr llvm::StringLiteral SummariesOption = "TorchSummaries";
  static constexpr llvm::StringLiteral SummariesOutputOption = "TorchSummariesOutput";

  /// The matchers of every check on the core: one on the translation unit,
  /// which brings the check's onStartOfTranslationUnit and
  /// onEndOfTranslationUnit, and the check's place in the core's one pass
  /// over the user's functions (FunctionDispatch.h), which calls
  /// checkFunction.
  void registerMatchers(ast_matchers::MatchFinder *Finder) final {
    Finder->addMatcher(ast_matchers::translationUnitDecl(), this);
    Core->dispatch().enroll(Finder, this);
  }
  /// The translation unit's match: nothing to do but start and end it.
  void check(const ast_matchers::MatchFinder::MatchResult &) final {}
  /// What a check finds in one user function \p FD (a definition in the
  /// main file or a user header, not LibTorch's, not a system header's) with
  /// its \p Body, called once per function and translation unit by the
  /// core's pass, every check in turn.
  virtual void checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) = 0;

protected:
  AnalysisCore &core() const { return *Core; }
  /// The check's boolean option \p Key, read as text (the clang-tidy
  /// executable does not export its bool option helpers to plugins) the way
  /// clang-tidy reads its own: true/false in any case, 1/0. A bad value gets
  /// clang-tidy's configuration diagnostic, as its own options do, and
  /// \p Default. Stored back as "true"/"false".
  bool boolOption(llvm::StringRef Key, bool Default) {
    llvm::StringRef Text = Options.get(Key, Default ? "true" : "false");
    llvm::StringRef Trimmed = Text.trim();
    if (Trimmed.equals_insensitive("true") || Trimmed == "1")
      return true;
    if (Trimmed.equals_insensitive("false") || Trimmed == "0")
      return false;
    configurationDiag("invalid configuration value '%0' for option '%1'; expected a bool")
        << Text << (getID() + "." + Key).str();
    return Default;
  }
  /// What the check reports once the whole translation unit was seen (its
  /// last questions to the core and the linked summaries); it also resets
  /// the check's per-unit state.
  virtual void reportAtEndOfUnit() {}

  /// Holds a finding in \p FD until the end of the translation unit, when
  /// every call of \p FD is known: \p Emit reports it (the check's own
  /// diag()), and gets the unit's call graph (AnalysisCore::calls).
  void deferUntilCallersKnown(ASTContext &Ctx, const FunctionDecl *FD,
                              std::function<void(const CallGraph &)> Emit) {
    DeferredUnit = &Ctx;
    Deferred.emplace_back(FD, std::move(Emit));
  }
  /// A finding as data, for deferUntilCallersKnown: the warning at Loc (its
  /// text may name the tensor as %0), its range and fix-its, then its notes
  /// in order (a note at an invalid location is left out).
  struct DeferredFinding {
    SourceLocation Loc;
    std::string Message;
    std::string Name; ///< %0 of the warning and of the notes that spell it
    SourceRange Range;
    llvm::SmallVector<FixItHint, 2> Fixes;
    llvm::SmallVector<std::pair<SourceLocation, std::string>, 2> Notes;
  };
  /// Holds \p F in \p FD until the end of the translation unit, as above.
  void deferUntilCallersKnown(ASTContext &Ctx, const FunctionDecl *FD, DeferredFinding F) {
    deferUntilCallersKnown(Ctx, FD, [this, F = std::move(F)](const CallGraph &) { report(F); });
  }
  /// Reports \p F now (the check's own diag()).
  void report(const DeferredFinding &F) {
    {
      auto D = diag(F.Loc, F.Message);
      if (llvm::StringRef(F.Message).contains("%0"))
        D << F.Name;
      D << F.Range;
      for (const FixItHint &Fix : F.Fixes)
        D << Fix;
    }
    for (const auto &[Loc, Message] : F.Notes)
      if (Loc.isValid()) {
        auto D = diag(Loc, Message, DiagnosticIDs::Note);
        if (llvm::StringRef(Message).contains("%0"))
          D << F.Name;
      }
  }
  /// Reports the deferred findings of the functions that are not called only
  /// under a guard within \p CallDepth levels of calls (a function whose
  /// every chain of callers holds a guard computes no history), in the order
  /// they were deferred, and forgets them. The call graph is built only when
  /// a finding waits.
  void reportDeferredUnlessCallersGuarded(unsigned CallDepth) {
    if (DeferredUnit && !Deferred.empty()) {
      const CallGraph &Graph = Core->calls(*DeferredUnit);
      for (const auto &[FD, Emit] : Deferred)
        if (!Graph.guardedOnEveryPath(FD, CallDepth))
          Emit(Graph);
    }
    Deferred.clear();
    DeferredUnit = nullptr;
  }

private:
  std::shared_ptr<AnalysisCore> Core;
  std::vector<std::pair<const FunctionDecl *, std::function<void(const CallGraph &)>>> Deferred;
  ASTContext *DeferredUnit = nullptr;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CORECHECK_H
