//===--- GradModeNotRestoredCheck.cpp - libtorch-tidy ---------------------===//

#include "GradModeNotRestoredCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/ClangTidyCompat.h"
#include "utils/CallFacts.h"
#include "utils/Matchers.h"
#include "utils/TorchNames.h"

#include "clang/AST/ParentMap.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/CFG.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_check {

static constexpr llvm::StringLiteral FunctionId = "fn";

namespace {

class DisableCollector : public RecursiveASTVisitor<DisableCollector> {
public:
  explicit DisableCollector(const ASTContext &Ctx) : Ctx(Ctx) {}
  llvm::SmallVector<const CallExpr *, 4> Disables;
  llvm::SmallVector<const CallExpr *, 4> Restores;
  llvm::SmallVector<std::string, 8> Names;
  bool VisitCallExpr(CallExpr *Call) {
    switch (classifySetGradEnabled(Call, Ctx)) {
    case SetGradEnabled::Disables:
      Disables.push_back(Call);
      break;
    case SetGradEnabled::Enables:
    case SetGradEnabled::Unknown:
      Restores.push_back(Call);
      break;
    case SetGradEnabled::NotACall:
      break;
    }
    return true;
  }
  bool VisitNamedDecl(NamedDecl *ND) {
    if (ND->getIdentifier())
      Names.push_back(ND->getName().str());
    return true;
  }

private:
  const ASTContext &Ctx;
};

bool isRestoring(const CallExpr *Call, const ASTContext &Ctx) {
  SetGradEnabled K = classifySetGradEnabled(Call, Ctx);
  return K == SetGradEnabled::Enables || K == SetGradEnabled::Unknown;
}

/// A call that may throw: its callee is not declared non-throwing (every
/// LibTorch operation may throw c10::Error), or there is no known callee.
bool mayThrow(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return true;
  if (isNamed(dyn_cast<CXXRecordDecl>(FD->getDeclContext()), names::GradMode))
    return false;
  if (FD->getBuiltinID())
    return false;
  const auto *FPT = FD->getType()->getAs<FunctionProtoType>();
  return !FPT || !FPT->isNothrow();
}

bool containsSetEnabled(const Stmt *S, const ASTContext &Ctx) {
  if (!S)
    return false;
  if (classifySetGradEnabled(dyn_cast<CallExpr>(S), Ctx) != SetGradEnabled::NotACall)
    return true;
  for (const Stmt *Child : S->children())
    if (containsSetEnabled(Child, Ctx))
      return true;
  return false;
}

bool refersToAny(const Stmt *S, const llvm::SmallPtrSetImpl<const Decl *> &Decls) {
  if (!S)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (Decls.contains(DRE->getDecl()))
      return true;
  for (const Stmt *Child : S->children())
    if (refersToAny(Child, Decls))
      return true;
  return false;
}

bool endsInNoReturnCall(const CFGBlock &B) {
  for (auto It = B.rbegin(); It != B.rend(); ++It)
    if (auto S = It->getAs<CFGStmt>()) {
      const auto *Call = dyn_cast<CallExpr>(S->getStmt());
      const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
      return FD && FD->isNoReturn();
    }
  return false;
}

/// What the paths from a set_enabled(false) call show.
struct PathFacts {
  llvm::SmallVector<const CFGBlock *, 2> Escapes; ///< blocks that leave still disabled
  llvm::SmallVector<const CallExpr *, 8> Throwing; ///< calls that may throw before the restore
  const CallExpr *Restore = nullptr;              ///< a restoring call reached
  bool DidWork = false;                           ///< some call runs while disabled
};

PathFacts followPaths(const CFG &Graph, const CallExpr *Disable, const ASTContext &Ctx) {
  PathFacts Facts;
  const CFGBlock *Start = nullptr;
  unsigned StartIndex = 0;
  for (const CFGBlock *B : Graph) {
    for (unsigned I = 0; I < B->size() && !Start; ++I)
      if (auto S = (*B)[I].getAs<CFGStmt>(); S && S->getStmt() == Disable) {
        Start = B;
        StartIndex = I + 1;
      }
    if (Start)
      break;
  }
  if (!Start)
    return Facts;
  llvm::SmallPtrSet<const CFGBlock *, 16> Visited;
  llvm::SmallVector<std::pair<const CFGBlock *, unsigned>, 16> Work{{Start, StartIndex}};
  while (!Work.empty()) {
    auto [B, Index] = Work.pop_back_val();
    bool Restored = false;
    for (unsigned I = Index; I < B->size(); ++I) {
      auto S = (*B)[I].getAs<CFGStmt>();
      if (!S)
        continue;
      const auto *Call = dyn_cast<CallExpr>(S->getStmt());
      if (!Call)
        continue;
      if (isRestoring(Call, Ctx)) {
        Restored = true;
        if (!Facts.Restore)
          Facts.Restore = Call;
        break;
      }
      if (classifySetGradEnabled(Call, Ctx) != SetGradEnabled::NotACall)
        continue;
      Facts.DidWork = true;
      if (mayThrow(Call))
        Facts.Throwing.push_back(Call);
    }
    if (Restored)
      continue;
    for (const CFGBlock *Succ : B->succs()) {
      if (!Succ)
        continue;
      if (Succ == &Graph.getExit()) {
        // A call that never returns (std::exit, abort) ends the program, not
        // the function; one that throws counts as a call that may throw.
        if (!endsInNoReturnCall(*B))
          Facts.Escapes.push_back(B);
        continue;
      }
      if (Visited.insert(Succ).second)
        Work.push_back({Succ, 0});
    }
  }
  return Facts;
}

/// True when a try block around \p S (inside \p CodeBody) has a handler that
/// switches autograd back on.
bool restoredByHandler(const Stmt *S, const Stmt *CodeBody, const ParentMap &PM,
                       const ASTContext &Ctx) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != CodeBody; Child = P, P = PM.getParent(P)) {
    const auto *Try = dyn_cast<CXXTryStmt>(P);
    if (!Try || Child != Try->getTryBlock())
      continue;
    for (unsigned I = 0; I < Try->getNumHandlers(); ++I)
      if (containsSetEnabled(Try->getHandler(I)->getHandlerBlock(), Ctx))
        return true;
  }
  return false;
}

bool parseBool(llvm::StringRef Text, bool Default) {
  Text = Text.trim();
  if (Text.equals_insensitive("true") || Text == "1")
    return true;
  if (Text.equals_insensitive("false") || Text == "0")
    return false;
  return Default;
}

} // namespace

GradModeNotRestoredCheck::GradModeNotRestoredCheck(StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      CheckExceptionSafety(parseBool(Options.get("CheckExceptionSafety", "true"), true)) {}

void GradModeNotRestoredCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  // Stored as text: the plugin cannot use clang-tidy's bool option helpers,
  // which the clang-tidy executable does not export.
  Options.store(Opts, "CheckExceptionSafety", CheckExceptionSafety ? "true" : "false");
}

void GradModeNotRestoredCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(matchers::userFunctionDefinitions(FunctionId), this);
}

void GradModeNotRestoredCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const Stmt *Body = FD ? FD->getBody() : nullptr;
  if (!Body || FD->isMain())
    return;
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  DisableCollector Collector(Ctx);
  Collector.TraverseStmt(const_cast<Stmt *>(Body));
  if (Collector.Disables.empty())
    return;
  ParentMap PM(const_cast<Stmt *>(Body));

  llvm::DenseMap<const Stmt *, std::unique_ptr<CFG>> Graphs;
  auto GraphFor = [&](const Stmt *CodeBody) -> const CFG * {
    auto &Slot = Graphs[CodeBody];
    if (!Slot) {
      const Decl *D = FD;
      if (CodeBody != Body)
        for (const Stmt *P = PM.getParent(CodeBody); P; P = PM.getParent(P))
          if (const auto *Lambda = dyn_cast<LambdaExpr>(P)) {
            D = Lambda->getCallOperator();
            break;
          }
      CFG::BuildOptions Opts;
      Opts.setAllAlwaysAdd();
      Slot = CFG::buildCFG(D, const_cast<Stmt *>(CodeBody), &Ctx, Opts);
    }
    return Slot.get();
  };

  std::string GuardName = "no_grad";
  while (llvm::is_contained(Collector.Names, GuardName))
    GuardName += "_";

  for (const CallExpr *Disable : Collector.Disables) {
    const Stmt *CodeBody = enclosingCodeBody(Disable, PM, Body);
    const CFG *Graph = GraphFor(CodeBody);
    if (!Graph)
      continue;
    PathFacts Paths = followPaths(*Graph, Disable, Ctx);
    // The first call that may throw and whose exception no handler around it
    // answers by switching autograd back on.
    const CallExpr *FirstThrowing = nullptr;
    for (const CallExpr *Call : Paths.Throwing)
      if (!restoredByHandler(Call, CodeBody, PM, Ctx) &&
          (!FirstThrowing ||
           SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Call->getBeginLoc()),
                                        SM.getExpansionLoc(compat::beginLoc(FirstThrowing)))))
        FirstThrowing = Call;
    const bool InLambda = CodeBody != Body;
    const bool AnyRestore = llvm::any_of(Collector.Restores, [&](const CallExpr *R) {
      return enclosingCodeBody(R, PM, Body) == CodeBody;
    });

    const bool Escapes = !Paths.Escapes.empty() && (AnyRestore || Paths.DidWork);
    const bool Unsafe = !Escapes && CheckExceptionSafety && Paths.Restore && FirstThrowing;
    if (!Escapes && !Unsafe)
      continue;

    enum { Fixed, NoPair, UsedAfter, NotPossible } FixState = NotPossible;
    const Stmt *RestoreStmt = nullptr;
    {
      auto D = Escapes
                   ? diag(Disable->getBeginLoc(),
                          "autograd switched off here is not switched back on on every path out "
                          "of %select{'%1'|the lambda}0: it stays off for the caller, whose "
                          "training then records no graph and gets no gradients")
                   : diag(Disable->getBeginLoc(),
                          "autograd switched off here is switched back on only when nothing "
                          "throws: an exception leaves it off for the caller, whose training "
                          "then records no graph and gets no gradients");
      D << InLambda << FD->getNameAsString() << Disable->getSourceRange();

      // The fix-it: the pair is in one block.
      const Stmt *DisableStmt = asBlockStatement(Disable, PM);
      const auto *Block = DisableStmt ? dyn_cast<CompoundStmt>(PM.getParent(DisableStmt)) : nullptr;
      llvm::SmallVector<const Stmt *, 8> Between, After;
      if (Block) {
        bool Seen = false;
        for (const Stmt *S : Block->body()) {
          if (S == DisableStmt) {
            Seen = true;
            continue;
          }
          if (!Seen)
            continue;
          if (!RestoreStmt) {
            const auto *E = dyn_cast<Expr>(S);
            const auto *Call = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
            if (Call && isRestoring(Call, Ctx)) {
              RestoreStmt = S;
              continue;
            }
            Between.push_back(S);
          } else if (!isa<NullStmt>(S)) {
            After.push_back(S);
          }
        }
      }
      bool Fixable = RestoreStmt && !llvm::any_of(Between, [&](const Stmt *S) {
        return containsSetEnabled(S, Ctx) || isa<LabelStmt>(S);
      });
      llvm::SmallPtrSet<const Decl *, 8> DeclaredBetween;
      for (const Stmt *S : Between)
        if (const auto *DS = dyn_cast<DeclStmt>(S))
          for (const Decl *Dcl : DS->decls())
            DeclaredBetween.insert(Dcl);
      if (!Fixable)
        FixState = NoPair;
      if (Fixable && !After.empty() &&
          llvm::any_of(After, [&](const Stmt *S) { return refersToAny(S, DeclaredBetween); })) {
        Fixable = false;
        FixState = UsedAfter;
      }
      SourceLocation DisableEnd = locationAfterSemicolon(DisableStmt ? DisableStmt : Disable, SM,
                                                         getLangOpts());
      SourceLocation RestoreEnd =
          RestoreStmt ? locationAfterSemicolon(RestoreStmt, SM, getLangOpts()) : SourceLocation();
      if (Fixable && DisableEnd.isValid() && RestoreEnd.isValid()) {
        CharSourceRange DisableRange = Lexer::makeFileCharRange(
            CharSourceRange::getTokenRange(Disable->getSourceRange()), SM, getLangOpts());
        std::string Guard = names::NoGradGuardSpelling.str() + " " + GuardName;
        if (After.empty()) {
          CharSourceRange Removal = statementRemovalRange(RestoreStmt, SM, getLangOpts());
          if (DisableRange.isValid() && Removal.isValid()) {
            D << FixItHint::CreateReplacement(DisableRange, Guard)
              << FixItHint::CreateRemoval(Removal);
            FixState = Fixed;
          }
        } else {
          std::string Indent = indentationAt(Disable->getBeginLoc(), SM);
          CharSourceRange RestoreRange =
              CharSourceRange::getCharRange(RestoreStmt->getBeginLoc(), RestoreEnd);
          if (DisableRange.isValid()) {
            D << FixItHint::CreateReplacement(DisableRange, "{\n" + Indent + "  " + Guard)
              << FixItHint::CreateReplacement(RestoreRange, "}");
            FixState = Fixed;
          }
        }
      }
    }

    if (Escapes) {
      const CFGBlock *Exit = Paths.Escapes.front();
      const Stmt *Last = Exit->getTerminatorStmt();
      if (!Last)
        for (auto It = Exit->rbegin(); It != Exit->rend(); ++It)
          if (auto S = It->getAs<CFGStmt>()) {
            Last = S->getStmt();
            break;
          }
      if (isa_and_nonnull<ReturnStmt>(Last))
        diag(Last->getBeginLoc(), "autograd is still off when it returns here",
             DiagnosticIDs::Note);
      else if (isa_and_nonnull<CXXThrowExpr>(Last))
        diag(Last->getBeginLoc(), "autograd is still off when this exception leaves",
             DiagnosticIDs::Note);
      else if (const auto *CS = dyn_cast<CompoundStmt>(CodeBody))
        diag(CS->getRBracLoc(), "autograd is still off at the end", DiagnosticIDs::Note);
    } else {
      diag(compat::beginLoc(FirstThrowing),
           "this call may throw before autograd is switched back on", DiagnosticIDs::Note);
      diag(Paths.Restore->getBeginLoc(), "switched back on here", DiagnosticIDs::Note);
    }
    if (FixState == NoPair)
      diag(Disable->getBeginLoc(),
           "no fix-it: autograd is not switched back on later in the same block; hold a "
           "'%0' for the scope that needs autograd off",
           DiagnosticIDs::Note)
          << names::NoGradGuardSpelling;
    else if (FixState == UsedAfter)
      diag(RestoreStmt->getBeginLoc(),
           "no fix-it: variables declared while autograd is off are used after it is switched "
           "back on; hold a '%0' for the scope that needs autograd off",
           DiagnosticIDs::Note)
          << names::NoGradGuardSpelling;
  }
}

} // namespace clang::tidy::torch_check
