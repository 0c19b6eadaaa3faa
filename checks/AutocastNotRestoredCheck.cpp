//===--- AutocastNotRestoredCheck.cpp - libtorch-tidy ---------------------===//

#include "AutocastNotRestoredCheck.h"
#include "utils/ClangTidyCompat.h"
#include "utils/Autocast.h"
#include "utils/CallFacts.h"
#include "utils/ExecutionOrder.h"
#include "utils/Matchers.h"
#include "utils/ModeRestore.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral DefaultGuardType = "libtorch_tidy::amp::AutocastGuard";
static constexpr llvm::StringLiteral DefaultGuardHeader = "<libtorch_tidy/amp.h>";

namespace {

/// What \p Call does to the autocast state of the device \p Device.
ModeCall classifyFor(const CallExpr *Call, const AutocastDevice &Device, const ASTContext &Ctx) {
  AutocastSwitch S = classifyAutocastSwitch(Call, Ctx);
  if (S.Value == AutocastSwitch::NotACall || !S.Device.mayBe(Device))
    return ModeCall::None;
  switch (S.Value) {
  case AutocastSwitch::Enables:
    return ModeCall::Enters;
  case AutocastSwitch::Disables:
    return ModeCall::Leaves;
  default:
    return ModeCall::Unknown;
  }
}

/// Calls that run autocast's casts: forward passes, LibTorch operations,
/// anything returning a tensor. A function that only switches autocast on
/// (a setter, the constructor of a scope class) does none of them.
bool runsOperations(const CallExpr *Call) {
  if (isForwardCall(Call) || isTensorType(Call->getType()))
    return true;
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && isInLibraryNamespace(FD) && !isAutocastApiCall(Call) &&
         !isNamed(dyn_cast<CXXRecordDecl>(FD->getDeclContext()), names::GradMode);
}

bool neverThrows(const CallExpr *Call) {
  if (isAutocastApiCall(Call))
    return true;
  const FunctionDecl *FD = Call->getDirectCallee();
  return FD && isNamed(dyn_cast<CXXRecordDecl>(FD->getDeclContext()), names::GradMode);
}

/// The source text of \p E; empty when it cannot be taken from one file.
std::string textOf(const Expr *E, const SourceManager &SM, const LangOptions &LangOpts) {
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, LangOpts);
  if (Range.isInvalid())
    return {};
  return Lexer::getSourceText(Range, SM, LangOpts).str();
}

/// The call an expression statement of a block makes, or null.
const CallExpr *statementCall(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  return E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
}

bool isClearCache(const Stmt *S) {
  const CallExpr *Call = statementCall(S);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && isAutocastApiCall(Call) && FD->getName() == "clear_cache";
}

} // namespace

AutocastNotRestoredCheck::AutocastNotRestoredCheck(StringRef Name, ClangTidyContext *Context,
                                                     std::shared_ptr<AnalysisCore> Core)
    : ModeRestoreCheck(Name, Context, std::move(Core)),
      GuardType([&] {
        StringRef Text = Options.get("GuardType", DefaultGuardType);
        if (!Text.trim().empty())
          return Text.str();
        configurationDiag("invalid configuration value '' for option '%0'; expected a type name, "
                          "using '%1'")
            << (Name + ".GuardType").str() << DefaultGuardType;
        return DefaultGuardType.str();
      }()),
      GuardHeader(Options.get("GuardHeader", DefaultGuardHeader).str()),
      Inserter(Options.getLocalOrGlobal("IncludeStyle", utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void AutocastNotRestoredCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  ModeRestoreCheck::storeOptions(Opts);
  Options.store(Opts, "GuardType", GuardType);
  Options.store(Opts, "GuardHeader", GuardHeader);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

namespace {
class HeaderIncludes : public PPCallbacks {
public:
  HeaderIncludes(const SourceManager &SM, llvm::StringRef Header, llvm::DenseSet<FileID> &Files)
      : SM(SM), Header(Header), Files(Files) {}
  void InclusionDirective(SourceLocation HashLoc, const Token &, StringRef FileName, bool IsAngled,
                          CharSourceRange, OptionalFileEntryRef, StringRef, StringRef,
                          const Module *, bool, SrcMgr::CharacteristicKind) override {
    llvm::StringRef Wanted = Header;
    bool WantAngled = Wanted.consume_front("<") && Wanted.consume_back(">");
    if (FileName == Wanted && IsAngled == WantAngled)
      Files.insert(SM.getFileID(HashLoc));
  }

private:
  const SourceManager &SM;
  llvm::StringRef Header;
  llvm::DenseSet<FileID> &Files;
};
/// The arguments of the guard a fix-it declares for \p Switch.
struct GuardArguments {
  std::string Device; ///< empty when the device cannot be spelled
  std::string Dtype;
  /// The neighbouring set_autocast_*_dtype statement whose dtype the guard
  /// takes (the fix-it removes it), or null.
  const Stmt *DtypeStmt = nullptr;
};

/// The device of the call, and the dtype a neighbouring set_autocast_*_dtype
/// sets (folded into the guard) or the dtype autocast has now (what
/// torch.autocast uses without a dtype).
GuardArguments guardArguments(const AutocastSwitch &Switch, const ModeScope &Scope,
                              const ParentMap &PM, ASTContext &Ctx, const LangOptions &LangOpts) {
  const SourceManager &SM = Ctx.getSourceManager();
  GuardArguments Args;
  if (Switch.DeviceGeneric)
    Args.Device = textOf(Switch.Device.Arg, SM, LangOpts);
  else if (Switch.Device.Name == "CUDA" || Switch.Device.Name == "CPU")
    Args.Device = ("at::k" + Switch.Device.Name).str();
  else
    Args.Device = ("c10::DeviceType::" + Switch.Device.Name).str();

  if (Scope.Result == ModeScope::Fixable) {
    llvm::SmallVector<const Stmt *, 4> Neighbours;
    const auto *Block = cast<CompoundStmt>(PM.getParent(Scope.EnterStmt));
    for (auto It = Block->body_begin(); It != Block->body_end(); ++It)
      if (*It == Scope.EnterStmt && It != Block->body_begin())
        Neighbours.push_back(*std::prev(It));
    for (const Stmt *S : Scope.Between) {
      const CallExpr *Call = statementCall(S);
      if (!Call || !isAutocastApiCall(Call))
        break;
      Neighbours.push_back(S);
    }
    for (const Stmt *S : Neighbours) {
      AutocastDtypeSetter Setter = classifyAutocastDtypeSetter(statementCall(S), Ctx);
      if (!Setter.Dtype || Setter.Device.Name != Switch.Device.Name ||
          (Switch.Device.Name.empty() && textOf(Setter.Device.Arg, SM, LangOpts) != Args.Device))
        continue;
      Args.Dtype = textOf(Setter.Dtype, SM, LangOpts);
      if (!Args.Dtype.empty())
        Args.DtypeStmt = S;
      break;
    }
  }
  if (!Args.DtypeStmt) {
    if (Switch.DeviceGeneric || defaultAutocastDtype(Switch.Device.Name).empty())
      Args.Dtype = "at::autocast::get_autocast_dtype(" + Args.Device + ")";
    else if (Switch.Device.Name == "CUDA")
      Args.Dtype = "at::autocast::get_autocast_gpu_dtype()";
    else
      Args.Dtype = ("at::autocast::get_autocast_" + Switch.Device.Name.lower() + "_dtype()");
  }
  return Args;
}

} // namespace

void AutocastNotRestoredCheck::registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                                                   Preprocessor *) {
  Inserter.registerPreprocessor(PP);
  IncludeGuardHeader.clear();
  if (!GuardHeader.empty())
    PP->addPPCallbacks(std::make_unique<HeaderIncludes>(SM, GuardHeader, IncludeGuardHeader));
}

void AutocastNotRestoredCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body, ASTContext &Ctx) {
  if (FD->isMain())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LangOpts = getLangOpts();
  // Every switch is a call of a set_*enabled function (classifyAutocastSwitch).
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (!Facts.callsNamed([](StringRef N) { return N.starts_with("set_") && N.ends_with("enabled"); }))
    return;
  // The switches that turn autocast on, and the others (off, or a value
  // known only at run time), lambdas' included.
  llvm::SmallVector<std::pair<const CallExpr *, AutocastSwitch>, 4> Enables, Restores;
  for (const CallSite &Site : Facts.calls())
    if (const auto *Call = dyn_cast<CallExpr>(Site.E)) {
      AutocastSwitch S = classifyAutocastSwitch(Call, Ctx);
      if (S.Value == AutocastSwitch::Enables)
        Enables.push_back({Call, S});
      else if (S.Value != AutocastSwitch::NotACall)
        Restores.push_back({Call, S});
    }
  if (Enables.empty())
    return;
  const ParentMap &PM = Facts.parents();
  const ExecutionOrder &Order = Facts.order();
  auto AllNames = declaredNames(Facts);
  const std::string GuardName = freshName("autocast", AllNames);

  for (const auto &[Enable, Switch] : Enables) {
    const AutocastDevice &Device = Switch.Device;
    auto Classify = [&, &Device = Device](const CallExpr *Call) {
      return classifyFor(Call, Device, Ctx);
    };
    const Stmt *CodeBody = enclosingCodeBody(Enable, PM, Body);
    const CFG *Graph = Order.graph(CodeBody);
    if (!Graph)
      continue;
    ModePaths Paths = followModePaths(*Graph, Enable, Classify, neverThrows, runsOperations,
                                      knownConditions(Enable, PM, CodeBody, Facts.defUse()));
    const CallExpr *FirstThrowing = firstUnhandledThrow(Paths, CodeBody, PM, Classify, SM);
    const bool InLambda = CodeBody != Body;
    const bool AnyRestore = llvm::any_of(Restores, [&](const auto &R) {
      return R.second.Device.mayBe(Device) && enclosingCodeBody(R.first, PM, Body) == CodeBody;
    });

    const bool Escapes = !Paths.Escapes.empty() && (AnyRestore || Paths.DidWork);
    const bool Unsafe = !Escapes && CheckExceptionSafety && Paths.Restore && FirstThrowing;
    if (!Escapes && !Unsafe)
      continue;

    ModeScope Scope = findModeScope(Enable, PM, Classify);
    bool Fixed = false;
    {
      auto D = Escapes
                   ? diag(compat::beginLoc(Enable),
                          "autocast switched on here is not switched off on every path out of "
                          "%select{'%1'|the lambda}0: it stays on for the caller, whose later "
                          "code then runs in reduced precision and whose cast cache of weight "
                          "copies is never cleared")
                   : diag(compat::beginLoc(Enable),
                          "autocast switched on here is switched off only when nothing throws: "
                          "an exception leaves it on for the caller, whose later code then runs "
                          "in reduced precision and whose cast cache of weight copies is never "
                          "cleared");
      D << InLambda << FD->getNameAsString() << Enable->getSourceRange();

      const GuardArguments Args = guardArguments(Switch, Scope, PM, Ctx, LangOpts);

      CharSourceRange EnableRange = Lexer::makeFileCharRange(
          CharSourceRange::getTokenRange(Enable->getSourceRange()), SM, LangOpts);
      llvm::SmallVector<FixItHint, 2> Fixes;
      if (!Args.Device.empty())
        Fixes = guardScopeFixes(Scope, EnableRange,
                                GuardType + " " + GuardName + "(" + Args.Device + ", " +
                                    Args.Dtype + ")",
                                SM, LangOpts);
      if (!Fixes.empty()) {
        // The guard sets the dtype and clears the cast cache at the end of
        // the outermost scope: the statements that did it by hand go.
        const Stmt *Last = Scope.Between.empty() ? nullptr : Scope.Between.back();
        for (const Stmt *S : {Args.DtypeStmt, isClearCache(Last) ? Last : nullptr}) {
          if (!S)
            continue;
          CharSourceRange Removal = statementRemovalRange(S, SM, LangOpts);
          if (Removal.isInvalid()) {
            Fixes.clear();
            break;
          }
          Fixes.push_back(FixItHint::CreateRemoval(Removal));
        }
      }
      for (const FixItHint &Fix : Fixes)
        D << Fix;
      Fixed = !Fixes.empty();
      FileID File = SM.getFileID(SM.getExpansionLoc(compat::beginLoc(Enable)));
      if (Fixed && !GuardHeader.empty() && !IncludeGuardHeader.contains(File))
        if (auto Include = Inserter.createIncludeInsertion(File, GuardHeader))
          D << *Include;
    }

    noteWhy(Escapes, Paths, FirstThrowing, CodeBody);
    if (!Fixed)
      noteNoFix(Enable, Scope);
  }
}

void AutocastNotRestoredCheck::noteWhy(bool Escapes, const ModePaths &Paths,
                                       const CallExpr *FirstThrowing, const Stmt *CodeBody) {
  if (Escapes) {
    const Stmt *Last = escapeStatement(*Paths.Escapes.front());
    if (isa_and_nonnull<ReturnStmt>(Last))
      diag(compat::beginLoc(Last), "autocast is still on when it returns here",
           DiagnosticIDs::Note);
    else if (isa_and_nonnull<CXXThrowExpr>(Last))
      diag(compat::beginLoc(Last), "autocast is still on when this exception leaves",
           DiagnosticIDs::Note);
    else if (const auto *CS = dyn_cast<CompoundStmt>(CodeBody))
      diag(CS->getRBracLoc(), "autocast is still on at the end", DiagnosticIDs::Note);
    return;
  }
  diag(compat::beginLoc(FirstThrowing), "this call may throw before autocast is switched off",
       DiagnosticIDs::Note);
  diag(compat::beginLoc(Paths.Restore), "switched off here", DiagnosticIDs::Note);
}

void AutocastNotRestoredCheck::noteNoFix(const CallExpr *Enable, const ModeScope &Scope) {
  if (Scope.Result == ModeScope::NoPair)
    diag(compat::beginLoc(Enable),
         "no fix-it: autocast is not switched off later in the same block; hold a '%0' for "
         "the scope that needs autocast",
         DiagnosticIDs::Note)
        << GuardType;
  else if (Scope.Result == ModeScope::UsedAfter)
    diag(compat::beginLoc(Scope.RestoreStmt),
         "no fix-it: variables declared while autocast is on are used after it is switched "
         "off; hold a '%0' for the scope that needs autocast",
         DiagnosticIDs::Note)
        << GuardType;
}

} // namespace clang::tidy::torch_check
