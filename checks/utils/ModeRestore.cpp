//===--- ModeRestore.cpp - libtorch-tidy ----------------------------------===//

#include "ModeRestore.h"
#include "ASTHelpers.h"
#include "CallFacts.h"
#include "Callees.h"
#include "ClangTidyCompat.h"
#include "DefUse.h"
#include "FunctionFacts.h"
#include "Traversal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch_check {

bool mayThrow(const CallExpr *Call, CallPredicate NeverThrows) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return true;
  if (NeverThrows(Call) || FD->getBuiltinID())
    return false;
  const auto *FPT = FD->getType()->getAs<FunctionProtoType>();
  return !FPT || !FPT->isNothrow();
}

static bool endsInNoReturnCall(const CFGBlock &B) {
  for (auto It = B.rbegin(); It != B.rend(); ++It)
    if (auto S = It->getAs<CFGStmt>()) {
      const auto *Call = dyn_cast<CallExpr>(S->getStmt());
      const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
      return FD && FD->isNoReturn();
    }
  return false;
}

/// The bool variable an `if` condition tests, and whether it is negated:
/// `flag`, `!flag`, `!!flag`. Null for anything else.
static std::pair<const VarDecl *, bool> testedFlag(const Expr *Cond) {
  bool Negated = false;
  const Expr *E = Cond ? Cond->IgnoreParenImpCasts() : nullptr;
  while (const auto *UO = dyn_cast_or_null<UnaryOperator>(E)) {
    if (UO->getOpcode() != UO_LNot)
      return {nullptr, false};
    Negated = !Negated;
    E = UO->getSubExpr()->IgnoreParenImpCasts();
  }
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD)
    return {nullptr, false};
  QualType T = VD->getType();
  // A bool, or a const reference to one (nothing in the body writes it).
  if (T->isReferenceType()) {
    T = T.getNonReferenceType();
    if (!T.isConstQualified())
      return {nullptr, false};
  }
  if (!T->isBooleanType())
    return {nullptr, false};
  return {VD, Negated};
}

/// The `if` whose branch \p B's terminator decides, when it tests a flag
/// plainly (no init statement, no condition variable).
static const IfStmt *plainIf(const CFGBlock &B) {
  const auto *If = dyn_cast_or_null<IfStmt>(B.getTerminatorStmt());
  if (!If || If->getInit() || If->getConditionVariable() || If->isConsteval())
    return nullptr;
  return If;
}

llvm::SmallVector<KnownCondition, 2> knownConditions(const Stmt *Enter, const ParentMap &PM,
                                                     const Stmt *CodeBody, const DefUse &Defs) {
  llvm::SmallVector<KnownCondition, 2> Known;
  const Stmt *Child = Enter;
  for (const Stmt *P = PM.getParent(Enter); P && Child != CodeBody;
       Child = P, P = PM.getParent(P)) {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || If->getInit() || If->getConditionVariable() ||
        (Child != If->getThen() && Child != If->getElse()))
      continue;
    auto [VD, Negated] = testedFlag(If->getCond());
    // Not a static local: another call of the function may write it.
    if (!VD || !(isa<ParmVarDecl>(VD) || (VD->isLocalVarDecl() && !VD->isStaticLocal())) ||
        Defs.isModified(VD))
      continue;
    Known.push_back({VD, (Child == If->getThen()) != Negated});
  }
  return Known;
}

ModePaths followModePaths(const CFG &Graph, const CallExpr *Enter, ModeClassifier Classify,
                          CallPredicate NeverThrows, CallPredicate CountsAsWork,
                          llvm::ArrayRef<KnownCondition> Known) {
  ModePaths Facts;
  const CFGBlock *Start = nullptr;
  unsigned StartIndex = 0;
  for (const CFGBlock *B : Graph) {
    for (unsigned I = 0; I < B->size() && !Start; ++I)
      if (auto S = (*B)[I].getAs<CFGStmt>(); S && S->getStmt() == Enter) {
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
      ModeCall K = Classify(Call);
      if (isModeRestore(K)) {
        Restored = true;
        if (!Facts.Restore)
          Facts.Restore = Call;
        break;
      }
      if (K != ModeCall::None)
        continue;
      if (CountsAsWork(Call))
        Facts.DidWork = true;
      if (mayThrow(Call, NeverThrows))
        Facts.Throwing.push_back(Call);
    }
    if (Restored)
      continue;
    // An `if` on a known flag: only the branch its value takes (succs() of
    // an `if` block: the then branch, then the else branch).
    int OnlySucc = -1;
    if (const IfStmt *If = Known.empty() ? nullptr : plainIf(*B))
      if (auto [VD, Negated] = testedFlag(If->getCond()); VD && B->succ_size() == 2)
        for (const KnownCondition &K : Known)
          if (K.first == VD)
            OnlySucc = (K.second != Negated) ? 0 : 1;
    int SuccIndex = -1;
    for (const CFGBlock *Succ : B->succs()) {
      ++SuccIndex;
      if (OnlySucc >= 0 && SuccIndex != OnlySucc)
        continue;
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

bool containsModeCall(const Stmt *S, ModeClassifier Classify) {
  return anyStmt(S, [&](const Stmt *X) {
    const auto *Call = dyn_cast<CallExpr>(X);
    return Call && Classify(Call) != ModeCall::None;
  });
}

/// True when a try block around \p S (inside \p CodeBody) has a handler that
/// sets the mode.
static bool restoredByHandler(const Stmt *S, const Stmt *CodeBody, const ParentMap &PM,
                              ModeClassifier Classify) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != CodeBody; Child = P, P = PM.getParent(P)) {
    const auto *Try = dyn_cast<CXXTryStmt>(P);
    if (!Try || Child != Try->getTryBlock())
      continue;
    for (unsigned I = 0; I < Try->getNumHandlers(); ++I)
      if (containsModeCall(Try->getHandler(I)->getHandlerBlock(), Classify))
        return true;
  }
  return false;
}

const CallExpr *firstUnhandledThrow(const ModePaths &Paths, const Stmt *CodeBody,
                                    const ParentMap &PM, ModeClassifier Classify,
                                    const SourceManager &SM) {
  const CallExpr *First = nullptr;
  for (const CallExpr *Call : Paths.Throwing)
    if (!restoredByHandler(Call, CodeBody, PM, Classify) &&
        (!First || startsBefore(Call, First, SM)))
      First = Call;
  return First;
}

const Stmt *escapeStatement(const CFGBlock &Exit) {
  if (const Stmt *T = Exit.getTerminatorStmt())
    return T;
  for (auto It = Exit.rbegin(); It != Exit.rend(); ++It)
    if (auto S = It->getAs<CFGStmt>())
      return S->getStmt();
  return nullptr;
}

ModeScope findModeScope(const CallExpr *Enter, const ParentMap &PM, ModeClassifier Classify) {
  ModeScope Scope;
  Scope.EnterStmt = asBlockStatement(Enter, PM);
  const auto *Block =
      Scope.EnterStmt ? dyn_cast<CompoundStmt>(PM.getParent(Scope.EnterStmt)) : nullptr;
  if (!Block)
    return Scope;
  bool Seen = false;
  for (const Stmt *S : Block->body()) {
    if (S == Scope.EnterStmt) {
      Seen = true;
      continue;
    }
    if (!Seen)
      continue;
    if (!Scope.RestoreStmt) {
      const auto *E = dyn_cast<Expr>(S);
      const auto *Call = E ? dyn_cast<CallExpr>(E->IgnoreImplicit()) : nullptr;
      if (Call && isModeRestore(Classify(Call))) {
        Scope.RestoreStmt = S;
        continue;
      }
      Scope.Between.push_back(S);
    } else if (!isa<NullStmt>(S)) {
      Scope.After.push_back(S);
    }
  }
  if (!Scope.RestoreStmt || llvm::any_of(Scope.Between, [&](const Stmt *S) {
        return containsModeCall(S, Classify) || isa<LabelStmt>(S);
      }))
    return Scope;
  llvm::SmallPtrSet<const Decl *, 8> DeclaredBetween;
  for (const Stmt *S : Scope.Between)
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *Dcl : DS->decls())
        DeclaredBetween.insert(Dcl);
  Scope.Result = llvm::any_of(Scope.After,
                              [&](const Stmt *S) { return refersToAny(S, DeclaredBetween); })
                     ? ModeScope::UsedAfter
                     : ModeScope::Fixable;
  return Scope;
}

llvm::SmallVector<FixItHint, 2> guardScopeFixes(const ModeScope &Scope, CharSourceRange EnterRange,
                                                llvm::StringRef GuardDecl,
                                                const SourceManager &SM,
                                                const LangOptions &LangOpts) {
  llvm::SmallVector<FixItHint, 2> Fixes;
  if (Scope.Result != ModeScope::Fixable || EnterRange.isInvalid())
    return Fixes;
  SourceLocation EnterEnd = locationAfterSemicolon(Scope.EnterStmt, SM, LangOpts);
  SourceLocation RestoreEnd = locationAfterSemicolon(Scope.RestoreStmt, SM, LangOpts);
  if (EnterEnd.isInvalid() || RestoreEnd.isInvalid())
    return Fixes;
  if (Scope.After.empty()) {
    CharSourceRange Removal = statementRemovalRange(Scope.RestoreStmt, SM, LangOpts);
    if (Removal.isInvalid())
      return Fixes;
    Fixes.push_back(FixItHint::CreateReplacement(EnterRange, GuardDecl));
    Fixes.push_back(FixItHint::CreateRemoval(Removal));
    return Fixes;
  }
  std::string Indent = indentationAt(EnterRange.getBegin(), SM);
  Fixes.push_back(
      FixItHint::CreateReplacement(EnterRange, ("{\n" + Indent + "  " + GuardDecl).str()));
  Fixes.push_back(FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(compat::beginLoc(Scope.RestoreStmt), RestoreEnd), "}"));
  return Fixes;
}

/// True when the calls that take \p VD by non-const reference leave it as it
/// is: a callee defined here that modifies none of the parameters bound to it,
/// or one defined elsewhere (a saved state handed to a helper by reference,
/// `stream_sync(saved, other)`, is read there; overwriting it would be odd).
/// Any other modification (`++`, a compound or member assignment, an in-place
/// call) does not qualify; plain whole assignments are sources and are not
/// asked about.
static bool onlyHandedByReference(const VarDecl *VD, const DefUse &Defs, DefUseOf CalleeDefs) {
  for (const Stmt *Site : Defs.modificationSites(VD)) {
    if (llvm::any_of(Defs.assignments(VD), [&](const auto &A) { return A.first == Site; }))
      continue;
    const auto *Call = dyn_cast<CallExpr>(Site);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee || isa<CXXMemberCallExpr>(Call) || isa<CXXOperatorCallExpr>(Call))
      return false;
    const FunctionDecl *Definition = Callee->getDefinition();
    if (!Definition || !Definition->hasBody())
      continue;
    const DefUse &InCallee = CalleeDefs(Definition);
    for (unsigned P = 0; P < Definition->getNumParams() && P < Call->getNumArgs(); ++P)
      if (DefUse::variableNamed(argumentFor(Call, P)) == VD &&
          InCallee.isModified(Definition->getParamDecl(P)))
        return false;
  }
  return true;
}

llvm::SmallVector<const CallExpr *, 2> savedStateGetters(const Expr *Arg, const Stmt *Body,
                                                         const DefUse &Defs, CallPredicate IsGetter,
                                                         DefUseOf CalleeDefs) {
  llvm::SmallVector<const CallExpr *, 2> Getters;
  const ValueDecl *Saved = namedVariable(Arg);
  // A name of the saved state itself: not `*p`, `p->x` or `v[i]`.
  const auto *Named = dyn_cast_or_null<DeclRefExpr>(stripCopies(Arg));
  const auto *Member = dyn_cast_or_null<MemberExpr>(stripCopies(Arg));
  if (!Saved || (!Named && !(Member && isa<CXXThisExpr>(Member->getBase()->IgnoreImpCasts()))))
    return Getters;
  llvm::SmallVector<const Expr *, 2> Sources;
  if (const auto *VD = dyn_cast<VarDecl>(Saved)) {
    if (isa<ParmVarDecl>(VD) ||
        (Defs.isOtherwiseModified(VD) && !onlyHandedByReference(VD, Defs, CalleeDefs)))
      return Getters;
    llvm::append_range(Sources, Defs.sources(VD));
  } else if (isa<FieldDecl>(Saved)) {
    bool Other = false;
    forEachStmt(Body, [&](const Stmt *S) {
      const auto *Assign = dyn_cast<BinaryOperator>(S);
      const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      const Expr *LHS = nullptr, *RHS = nullptr;
      if (Assign && Assign->isAssignmentOp()) {
        LHS = Assign->getLHS();
        RHS = Assign->getOpcode() == BO_Assign ? Assign->getRHS() : nullptr;
      } else if (Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
        LHS = Op->getArg(0);
        RHS = Op->getOperator() == OO_Equal ? Op->getArg(1) : nullptr;
      }
      if (!LHS || namedVariable(LHS) != Saved)
        return;
      if (RHS)
        Sources.push_back(RHS);
      else
        Other = true;
    });
    if (Other)
      return Getters;
  }
  for (const Expr *Source : Sources) {
    const auto *Call = dyn_cast_or_null<CallExpr>(stripCopies(Source));
    if (!Call || !IsGetter(Call))
      return {};
    Getters.push_back(Call);
  }
  return Getters;
}

const VarDecl *enclosingGuard(const Stmt *S, const ParentMap &PM, const Stmt *CodeBody,
                              llvm::function_ref<bool(QualType)> IsGuard) {
  const Stmt *Child = S;
  for (const Stmt *P = PM.getParent(S); P && Child != CodeBody; Child = P, P = PM.getParent(P)) {
    const auto *Block = dyn_cast<CompoundStmt>(P);
    if (!Block)
      continue;
    for (const Stmt *Earlier : Block->body()) {
      if (Earlier == Child)
        break;
      if (const auto *DS = dyn_cast<DeclStmt>(Earlier))
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D); VD && IsGuard(VD->getType()))
            return VD;
    }
  }
  return nullptr;
}

bool destructorSetsMode(const FunctionDecl *FD, ModeClassifier Classify) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  const CXXRecordDecl *RD = MD ? MD->getParent() : nullptr;
  const CXXDestructorDecl *Dtor = RD && RD->hasDefinition() ? RD->getDestructor() : nullptr;
  const FunctionDecl *Def = nullptr;
  return Dtor && Dtor->hasBody(Def) && containsModeCall(Def->getBody(), Classify);
}

std::string freshName(std::string Base, llvm::ArrayRef<std::string> Taken) {
  while (llvm::is_contained(Taken, Base))
    Base += "_";
  return Base;
}

llvm::SmallVector<std::string, 8> declaredNames(const FunctionFacts &Facts) {
  llvm::SmallVector<std::string, 8> Names;
  for (const NamedDecl *ND : Facts.namedDeclarations())
    Names.push_back(ND->getName().str());
  return Names;
}

} // namespace clang::tidy::torch_check
