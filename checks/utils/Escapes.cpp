//===--- Escapes.cpp - libtorch-tidy --------------------------------------===//

#include "Escapes.h"
#include "FunctionFacts.h"
#include "History.h"
#include "TorchNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch_check {

bool tensorish(QualType T) { return !T.isNull() && mayHoldTensor(T.getNonReferenceType()); }

namespace {

/// A type that refers to storage of someone else's: a reference, a pointer,
/// a smart pointer, a reference_wrapper.
bool isHandleType(QualType T) {
  if (T->isReferenceType() || T->isPointerType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && RD->isInStdNamespace() && RD->getIdentifier() &&
         llvm::is_contained({"shared_ptr", "unique_ptr", "weak_ptr", "reference_wrapper"},
                            RD->getName());
}

/// True when \p D is storage of the function's own: a local variable that is
/// not a parameter, a static, a reference, a pointer or a smart pointer.
bool isOwnStorage(const ValueDecl *D) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  return VD && !isa<ParmVarDecl>(VD) && VD->hasLocalStorage() && !isHandleType(VD->getType());
}

/// A data member a constructor may fill without the value leaving the
/// object (not a handle to someone else's storage).
bool isOwnField(const ValueDecl *D) {
  const auto *FD = dyn_cast_or_null<FieldDecl>(D);
  return FD && !isHandleType(FD->getType());
}

/// A function or class of LibTorch or the standard library (they keep no
/// tensor they are given, but for std::swap / std::exchange).
bool isLibraryDecl(const Decl *D) {
  const DeclContext *DC = D->getDeclContext();
  const NamespaceDecl *Top = nullptr;
  for (; DC && !DC->isTranslationUnit(); DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Top = NS;
  return Top && (Top->isStdNamespace() || isNamed(Top, names::TorchNamespace) ||
                 isNamed(Top, names::AtNamespace) || isNamed(Top, names::C10Namespace));
}

/// The user's forward methods that a module holder's call \p Op runs (the
/// forward of the class the holder holds, when that class is the user's).
llvm::SmallVector<const CXXMethodDecl *, 2> heldForwards(const CXXOperatorCallExpr *Op) {
  llvm::SmallVector<const CXXMethodDecl *, 2> Result;
  const CXXRecordDecl *Holder = classOf(Op->getArg(0)->getType());
  llvm::SmallVector<const CXXRecordDecl *, 4> Work;
  llvm::SmallPtrSet<const CXXRecordDecl *, 4> Seen;
  if (Holder)
    Work.push_back(Holder);
  while (!Work.empty()) { // the holder's bases up to ModuleHolder<Impl>
    const CXXRecordDecl *RD = Work.pop_back_val();
    if (!RD || !Seen.insert(RD).second || !RD->hasDefinition())
      continue;
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
        Spec && isNamed(Spec, names::ModuleHolder) && Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type) {
      if (const CXXRecordDecl *Impl = classOf(Spec->getTemplateArgs()[0].getAsType()))
        for (const CXXMethodDecl *MD : Impl->methods())
          if (MD->getIdentifier() && MD->getName() == "forward" && !isLibraryDecl(MD))
            Result.push_back(MD);
      continue;
    }
    for (const CXXBaseSpecifier &Base : RD->bases())
      Work.push_back(classOf(Base.getType()));
  }
  return Result;
}

/// Finds a way for a tensor computed in a body to outlive it (the
/// conservative side of resultsStayIn: anything it cannot follow counts).
///
/// With a history analysis (the inference rule, keepsNoHistory), only a value
/// that carries autograd history counts: a write, an insertion or an argument
/// escapes when that value carries history in the body; a call of a user
/// function with such an argument escapes unless \p Callee says that function
/// keeps none of it (returning it is allowed: the caller's history analysis
/// follows the result). Returns are not this walk's: the caller asks
/// HistoryAnalysis::returnsHistory where it matters.
class EscapeFinder {
public:
  using CalleePolicy = llvm::function_ref<bool(const FunctionDecl *)>;
  EscapeFinder() = default;
  /// \p State: the data members and globals of tensor type the body reads
  /// (a module's parameters among them): a value computed from one counts as
  /// carrying history too.
  /// \p Own: the body's analysis without the parameters as sources, for a
  /// parameter rewritten from itself (`src = src.to(device)`: the caller
  /// gets back what it gave, converted).
  EscapeFinder(const HistoryAnalysis &History, const HistoryAnalysis &Own, CalleePolicy Callee,
               llvm::ArrayRef<const ValueDecl *> State, llvm::ArrayRef<ParmVarDecl *> Params)
      : History(&History), Own(&Own), Callee(Callee), State(State), Params(Params) {}

  /// Local objects of the user's classes built from values with history
  /// (chosen in historyStaysIn): their construction and the calls of their methods
  /// that keep nothing stay in the body; any other use of one leaves it.
  struct LocalObjects {
    llvm::SmallVector<const VarDecl *, 2> Vars;
    llvm::SmallPtrSet<const Expr *, 4> Constructs;
    llvm::SmallPtrSet<const DeclRefExpr *, 8> MethodObjects;
    bool contains(const ValueDecl *D) const { return llvm::is_contained(Vars, D); }
  };
  void setObjects(const LocalObjects *O) { Objects = O; }
  /// A constructor's walk: its own data members are its storage.
  void setThisIsOwn() { ThisIsOwn = true; }

  /// True when one of \p Nodes (the facts' nodes of the body or of its
  /// member initialisers) lets a value leave.
  bool anyEscapes(llvm::ArrayRef<FunctionFacts::Node> Nodes) const {
    return llvm::any_of(
        Nodes, [&](const FunctionFacts::Node &N) { return N.Var ? escapes(N.Var) : escapes(N.S); });
  }

private:
  bool escapes(const Stmt *S) const {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      // A local object used but as the object of a method call (copied,
      // passed, returned, its fields read): it may take its history along.
      return Objects && Objects->contains(DRE->getDecl()) && !Objects->MethodObjects.contains(DRE);
    if (isa<LambdaExpr>(S)) // it may outlive the call
      return true;
    if (const auto *New = dyn_cast<CXXNewExpr>(S))
      return tensorish(New->getAllocatedType());
    if (const auto *B = dyn_cast<BinaryOperator>(S))
      return B->isAssignmentOp() &&
             writeLeaves(B->getLHS(), B->getRHS(), B->getOpcode() == BO_Assign);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S))
      return escapes(Op);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
      return escapes(MC);
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
          llvm::is_contained({"swap", "exchange", "iter_swap"}, FD->getName()))
        return true;
      return (!FD || !isLibraryDecl(FD)) && passesTensor(Call, 0) && !keepsNothing(Call);
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(S)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      if (!Ctor || isLibraryDecl(Ctor->getParent()) ||
          (Objects && Objects->Constructs.contains(Construct)))
        return false;
      return llvm::any_of(Construct->arguments(), [&](const Expr *Arg) {
        return tensorish(Arg->getType()) && carries(Arg);
      });
    }
    if (const auto *Init = dyn_cast<InitListExpr>(S)) {
      const CXXRecordDecl *RD = Init->getType()->getAsCXXRecordDecl();
      if (!RD || isLibraryDecl(RD) || (Objects && Objects->Constructs.contains(Init)))
        return false;
      return llvm::any_of(
          Init->inits(), [&](const Expr *E) { return E && tensorish(E->getType()) && carries(E); });
    }
    return false;
  }
  bool escapes(const VarDecl *VD) const {
    if (VD->hasLocalStorage() || !tensorish(VD->getType()))
      return false;
    return !History || !VD->getInit() || carries(VD->getInit());
  }
  bool escapes(const CXXOperatorCallExpr *Op) const {
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      return writeLeaves(Op->getArg(0), Op->getArg(1), Op->getOperator() == OO_Equal);
    if (History && isForwardCall(Op)) // a holder's call runs its module's forward
      for (const CXXMethodDecl *Fwd : heldForwards(Op))
        if (!Callee(Fwd))
          return true;
    const FunctionDecl *FD = Op->getDirectCallee();
    return (!FD || !isLibraryDecl(FD)) && passesTensor(Op, 0) && !keepsNothing(Op);
  }
  bool escapes(const CXXMemberCallExpr *MC) const {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Obj = MC->getImplicitObjectArgument();
    if (!MD || !Obj)
      return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts());
        DRE && Objects && Objects->contains(DRE->getDecl()))
      return !keepsNothing(MC); // the object holds history
    // Tensor's in-place methods are const members named with a trailing '_'.
    bool Mutates = !MD->isConst() || (MD->getIdentifier() && MD->getName().ends_with("_"));
    QualType ObjType = Obj->getType();
    if (ObjType->isPointerType())
      ObjType = ObjType->getPointeeType();
    if (Mutates && tensorish(ObjType) && !ownStorage(Obj) && (!History || passesTensor(MC, 0)))
      return true;
    if (isLibraryDecl(MD))
      return false;
    if (isForwardCall(MC))
      return History && !keepsNothing(MC); // a forward of the user's may keep state
    return passesTensor(MC, 0) && !keepsNothing(MC);
  }

  /// Without a history analysis every tensor counts.
  bool carries(const Expr *E) const {
    return !History || History->carriesHistory(E) ||
           llvm::any_of(State, [&](const ValueDecl *V) { return History->dependsOn(E, V); }) ||
           (Objects && llvm::any_of(Objects->Vars, [&](const VarDecl *V) {
              return History->dependsOn(E, V);
            }));
  }
  /// \p Value written to \p Target outlives the body with its history
  /// (\p Rebinds: a plain `=`, which gives a by-value tensor parameter a new
  /// tensor without touching the caller's).
  bool writeLeaves(const Expr *Target, const Expr *Value, bool Rebinds) const {
    if (!writesOut(Target))
      return false;
    if (!History)
      return true;
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(storageVariable(Target));
    if (!Param || !Own)
      return carries(Value);
    if (Rebinds && !Param->getType()->isReferenceType() && !Param->getType()->isPointerType() &&
        namedVariable(Target) == Param)
      return false; // the function's own copy of the handle
    // A parameter rewritten: only history that is not its own leaves.
    return Own->carriesHistory(Value) ||
           llvm::any_of(State, [&](const ValueDecl *V) { return History->dependsOn(Value, V); }) ||
           llvm::any_of(Params, [&](const ParmVarDecl *Q) {
             return Q != Param && tensorish(Q->getType()) && History->dependsOn(Value, Q);
           });
  }
  /// \p E is written: a tensor outlives the body unless \p E is the
  /// function's own storage (or holds no tensor).
  bool writesOut(const Expr *E) const { return tensorish(E->getType()) && !ownStorage(E); }
  /// \p E names storage of the body's own (a constructor's: its object's
  /// data members too).
  bool ownStorage(const Expr *E) const {
    const ValueDecl *D = storageVariable(E);
    return isOwnStorage(D) || (ThisIsOwn && isOwnField(D));
  }
  bool passesTensor(const CallExpr *Call, unsigned From) const {
    for (unsigned I = From; I < Call->getNumArgs(); ++I)
      if (tensorish(Call->getArg(I)->getType()) && carries(Call->getArg(I)))
        return true;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call); MC && History)
      if (const Expr *Obj = MC->getImplicitObjectArgument())
        return tensorish(Obj->getType()) && carries(Obj);
    return false;
  }
  /// The user function \p Call calls keeps nothing it is given (the history
  /// rule only; a call that cannot be followed keeps).
  bool keepsNothing(const CallExpr *Call) const {
    if (!History)
      return false;
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && !isVirtualDispatch(Call) && Callee(FD);
  }

  const HistoryAnalysis *History = nullptr;
  const HistoryAnalysis *Own = nullptr;
  CalleePolicy Callee;
  llvm::ArrayRef<const ValueDecl *> State;
  llvm::ArrayRef<ParmVarDecl *> Params;
  const LocalObjects *Objects = nullptr;
  bool ThisIsOwn = false;

public:
  /// The history rule's question for a value that leaves by `return`.
  bool carriesHistory(const Expr *E) const { return carries(E); }
};

/// The return values of a body (its lambdas' too: a body that spells a
/// lambda escapes before they are asked about) and the data members and
/// globals of tensor type it names: what the inference rule asks about.
struct StateAndReturns {
  llvm::SmallVector<const Expr *, 4> Returns;
  llvm::SmallVector<const ValueDecl *, 8> State;

  explicit StateAndReturns(const FunctionFacts &Facts) {
    for (const FunctionFacts::Node &N : Facts.nodes()) {
      if (const auto *R = dyn_cast_or_null<ReturnStmt>(N.S)) {
        if (const Expr *V = R->getRetValue())
          Returns.push_back(V);
      } else if (const auto *ME = dyn_cast_or_null<MemberExpr>(N.S)) {
        if (const auto *Field = dyn_cast<FieldDecl>(ME->getMemberDecl()))
          add(Field);
      } else if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(N.S)) {
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && !VD->hasLocalStorage())
          add(VD);
      }
    }
  }

private:
  void add(const ValueDecl *V) {
    if (tensorish(V->getType()) && !llvm::is_contained(State, V))
      State.push_back(V);
  }
};

/// The construction that initialises a local variable: a constructor call
/// (through the temporaries and casts of `auto x = T(a, b)`) or an
/// aggregate's initialiser list; null for anything else (a copy of another
/// object, a call's result).
const Expr *constructionOf(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = E->IgnoreImplicit();
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      const CXXConstructorDecl *Ctor = Construct->getConstructor();
      if (Ctor && Ctor->isCopyOrMoveConstructor()) {
        // An elided copy of a temporary (`T x = T(a)` before C++17).
        if (Construct->getNumArgs() == 1 &&
            isa<MaterializeTemporaryExpr>(Construct->getArg(0)->IgnoreParens())) {
          E = Construct->getArg(0);
          continue;
        }
        return nullptr;
      }
      return Construct;
    }
    if (isa<InitListExpr>(E))
      return E;
    return nullptr;
  }
  return nullptr;
}

/// The local variables of a body of the user's class types initialised by a
/// construction, and the references to any variable that are the object of
/// a method call (the only use findLocalObjects allows).
struct LocalObjectCandidates {
  llvm::SmallVector<std::pair<const VarDecl *, const Expr *>, 4> Candidates;
  llvm::SmallPtrSet<const DeclRefExpr *, 8> MethodObjects;

  explicit LocalObjectCandidates(const FunctionFacts &Facts) {
    for (const FunctionFacts::Node &N : Facts.nodes()) {
      if (N.Var)
        variable(N.Var);
      else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(N.S))
        if (const Expr *Obj = MC->getImplicitObjectArgument())
          if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts()))
            MethodObjects.insert(DRE);
    }
  }

private:
  void variable(const VarDecl *VD) {
    if (!VD->getInit() || !isOwnStorage(VD) || tensorish(VD->getType()))
      return;
    const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || RD->isLambda() || isLibraryDecl(RD))
      return;
    if (const Expr *Construction = constructionOf(VD->getInit()))
      Candidates.push_back({VD, Construction});
  }
};

/// A class whose objects end with their scope, taking what they hold along:
/// no base class, no destructor of the user's that does something.
bool endsWithItsObjects(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition() || RD->getNumBases() != 0)
    return false;
  if (const CXXDestructorDecl *Dtor = RD->getDestructor(); Dtor && Dtor->isUserProvided()) {
    const FunctionDecl *Def = Dtor->getDefinition();
    const auto *Body = dyn_cast_or_null<CompoundStmt>(Def ? Def->getBody() : nullptr);
    if (!Body || !Body->body_empty())
      return false;
  }
  return true;
}

/// True when \p E's value may come from a call of a user function the
/// translation unit does not define (through the local variables it reads,
/// not through a call that cuts history):
/// such a function may run a forward pass of its own whose history the
/// caller returns.
bool reachesUnseenCall(const Expr *E, const HistoryAnalysis &History, const ASTContext &Ctx) {
  llvm::SmallVector<const Stmt *, 8> Work{E};
  llvm::SmallPtrSet<const ValueDecl *, 8> Seen;
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S || (isa<Expr>(S) && cutsHistory(cast<Expr>(S)))) // argmax, item, detach...
      continue;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *FD = Call->getDirectCallee();
          FD && isUserFunction(FD, Ctx) && !FD->isDefined() && !isForwardCall(Call))
        return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && VD->hasLocalStorage() && Seen.insert(VD).second)
        for (const Expr *Def : History.definitions(VD))
          Work.push_back(Def);
    for (const Stmt *Child : S->children())
      Work.push_back(Child);
  }
  return false;
}
} // namespace

/// True when no tensor \p FD computes can reach autograd after it returns:
/// it returns no tensor, and nothing in its body lets one outlive it
/// (EscapeFinder).
bool resultsStayIn(const FunctionFacts &Facts) {
  const FunctionDecl *Def = Facts.function();
  if (!Def || !Def->getBody() || tensorish(Def->getReturnType()) || Def->isDependentContext())
    return false;
  return !EscapeFinder().anyEscapes(Facts.nodes());
}

bool HistoryEscapes::historyStaysIn(const FunctionDecl *FD, ASTContext &Ctx, unsigned Budget,
                                    bool ResultMayCarry, bool ThisIsOwn) {
  // The parameters are taken to carry history: a guard over the whole body
  // would cut a history that the caller's values bring in, too.
  const FunctionFacts &Facts = History.facts(FD);
  const HistoryAnalysis &Carried = History.analysis(FD, Ctx, /*ParamsCarry=*/true);
  StateAndReturns Seen(Facts);
  auto KeepsNothing = [&](const FunctionDecl *Callee) { return keepsNoHistory(Callee, Ctx, Budget); };
  EscapeFinder Finder(Carried, History.analysis(FD, Ctx, /*ParamsCarry=*/false), KeepsNothing,
                      Seen.State, FD->parameters());
  if (ThisIsOwn)
    Finder.setThisIsOwn();

  // Local objects of the user's classes built from values with history
  // (`auto dist = Normal(mu, sigma)`): the object is storage of the body's
  // when its constructor keeps nothing but in the object and the class ends
  // with its objects; what its methods return carries its history.
  EscapeFinder::LocalObjects Objects;
  LocalObjectCandidates Candidates(Facts);
  Objects.MethodObjects = std::move(Candidates.MethodObjects);
  Finder.setObjects(&Objects);
  for (const auto &[VD, Construction] : Candidates.Candidates) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(Construction);
    llvm::ArrayRef<const Expr *> Args =
        Construct ? llvm::ArrayRef<const Expr *>(Construct->getArgs(), Construct->getNumArgs())
                  : cast<InitListExpr>(Construction)->inits();
    if (!endsWithItsObjects(VD->getType()->getAsCXXRecordDecl()) ||
        llvm::none_of(Args, [&](const Expr *A) {
          return A && !isa<CXXDefaultArgExpr>(A) && Finder.carriesHistory(A);
        }))
      continue;
    if (Construct && !keepsOnlyInObject(Construct->getConstructor(), Ctx, Budget))
      continue;
    Objects.Vars.push_back(VD);
    Objects.Constructs.insert(Construction);
  }

  if ((ThisIsOwn && Finder.anyEscapes(Facts.initializerNodes())) ||
      Finder.anyEscapes(Facts.nodes()))
    return false;
  return ResultMayCarry || llvm::none_of(Seen.Returns, [&](const Expr *R) {
           return tensorish(R->getType()) &&
                  (Finder.carriesHistory(R) || reachesUnseenCall(R, Carried, Ctx));
         });
}

bool HistoryEscapes::keepsNoHistory(const FunctionDecl *FD, ASTContext &Ctx, unsigned Budget) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody()) {
    // Defined in another file: what its linked summary says.
    return KeepsNothingElsewhere && KeepsNothingElsewhere(FD);
  }
  if (Budget == 0 || Def->isDependentContext() || !isUserFunction(Def, Ctx))
    return false;
  // Every call this walk follows has a smaller budget, so no entry is asked
  // while it is being computed: the answer for a key is one, whatever the
  // order of the questions, and a recursion reads "may keep" (false) where
  // its budget runs out.
  auto Key = std::make_pair(Def->getCanonicalDecl(), Budget);
  if (auto It = Memo.find(Key); It != Memo.end())
    return It->second;
  bool Result = historyStaysIn(Def, Ctx, Budget - 1, /*ResultMayCarry=*/true);
  return Memo.try_emplace(Key, Result).first->second;
}

bool HistoryEscapes::keepsOnlyInObject(const CXXConstructorDecl *Ctor, ASTContext &Ctx,
                                       unsigned Budget) {
  const auto *Def = dyn_cast_or_null<CXXConstructorDecl>(Ctor ? Ctor->getDefinition() : nullptr);
  if (!Def || !Def->getBody() || Budget == 0 || Def->isDependentContext() ||
      !isUserFunction(Def, Ctx) || !endsWithItsObjects(Def->getParent()))
    return false;
  // Members only: a base's or another constructor's code is not followed.
  if (llvm::any_of(Def->inits(), [](const CXXCtorInitializer *Init) {
        return !Init->isAnyMemberInitializer();
      }))
    return false;
  auto Key = std::make_pair(static_cast<const FunctionDecl *>(Def->getCanonicalDecl()), Budget);
  if (auto It = ObjectMemo.find(Key); It != ObjectMemo.end())
    return It->second; // a smaller budget below, as in keepsNoHistory
  bool Result = historyStaysIn(Def, Ctx, Budget - 1, /*ResultMayCarry=*/true, /*ThisIsOwn=*/true);
  return ObjectMemo.try_emplace(Key, Result).first->second;
}

} // namespace clang::tidy::torch_check
