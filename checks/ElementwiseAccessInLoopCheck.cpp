//===--- ElementwiseAccessInLoopCheck.cpp - libtorch-tidy -----------------===//
//
// collect: the element accesses of each function: a chain of integer indexing
// steps (`t[i]`, `t.index({i, j})`; TorchNames.h) on a named tensor (or an
// element of a named container taken with an integer index, `outs[0]`), that
// reaches one number: its `.item()` / `.item<T>()` (directly or through a
// comparison or arithmetic with a number), the assignment of a number to it
// (`=`, `+=`, ...), `t.index_put_({i, j}, v)` with a number, or as many
// indices as the dimensions of a tensor the function made with a braced size
// (`torch::zeros({h, w})`); a row (`x[i]` passed to an operation) is no
// element access; a call of a helper that only accesses one element per call
// (helperAccesses) is an access at the call, its arguments the indices;
// decide: the loops around the access from the innermost out, while the
// tensor is the same on every iteration (declared before the loop, not
// assigned in it; a container's element: its index unchanged by the loop)
// and the loop does no tensor work of its own (no forward pass, no LibTorch
// operation other than element access, no call of the user's that takes or
// returns a tensor); of those, the outermost whose
// induction variable the indices use (directly or through a variable the
// loop computes from it);
// diagnose: once per loop and tensor, at the first access, a note at the
// loop; a fix-it (the accessor declared before the loop, every access of the
// loop rewritten) only when the tensor is a local made by a CPU factory with a
// known dtype and a braced size, every use of it in the loop is a rewritable
// access (all its dimensions indexed by a literal or a for loop's counter that
// starts at a literal and only counts up; item<T> of exactly the element
// type, or a number of that type assigned) or a size query.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseAccessInLoopCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/AnalysisCore.h"
#include "utils/CallFacts.h"
#include "utils/Callees.h"
#include "utils/ClangTidyCompat.h"
#include "utils/LoopVariables.h"
#include "utils/TorchMembers.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/MapVector.h"

namespace clang::tidy::torch_check {

namespace {

/// The bound of the loops below over chains of implicit nodes and indexing
/// steps; a longer chain is left alone.
constexpr unsigned MaxChain = 32;

/// The parent of \p S above the implicit nodes and parentheses around it.
const Stmt *semanticParent(const Stmt *S, const ParentMap &PM) {
  const Stmt *P = PM.getParent(S);
  for (unsigned Depth = 0; P && Depth < MaxChain; ++Depth) {
    if (!isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr, FullExpr>(P))
      return P;
    P = PM.getParent(P);
  }
  return P;
}

/// What uses the value of \p S: its semantic parent, or the member call
/// when \p S is the object of a member (`t[i].item()`: the item call).
const Stmt *userOf(const Stmt *S, const ParentMap &PM) {
  const Stmt *P = semanticParent(S, PM);
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
    if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(PM.getParent(ME)); MC && MC->getCallee() == ME)
      return MC;
  return P;
}

/// One step of integer indexing: the tensor indexed, or null.
const Expr *indexStep(const Expr *E) {
  llvm::SmallVector<const Expr *, 4> Ignored;
  return tensorIntegerIndexStep(E, Ignored);
}

/// `e.to(...)` on an indexing step `e`: the conversion of one element (or
/// one row), part of reading it rather than tensor work of the loop's own.
bool isElementConversion(const CXXMemberCallExpr *MC) {
  return MC && tensorMethodName(MC) == "to" &&
         indexStep(skipImplicitTemporaries(MC->getImplicitObjectArgument()));
}

/// The item() that reads \p E, directly or through the element conversions
/// above it (`e.to(kLong).item()`); null when none. \p Read is what item()
/// is (or would be) called on: \p E or its last conversion.
const CXXMemberCallExpr *itemThroughConversions(const Expr *E, const ParentMap &PM,
                                                const Expr *&Read) {
  Read = E;
  const Stmt *P = userOf(E, PM);
  for (unsigned Depth = 0; Depth < MaxChain; ++Depth) {
    const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(P);
    if (!isElementConversion(MC) ||
        skipImplicitTemporaries(MC->getImplicitObjectArgument()) != Read)
      break;
    Read = MC;
    P = userOf(MC, PM);
  }
  const auto *Item = dyn_cast_or_null<CXXMemberCallExpr>(P);
  return Item && tensorMethodName(Item) == "item" &&
                 skipImplicitTemporaries(Item->getImplicitObjectArgument()) == Read
             ? Item
             : nullptr;
}

/// A number (not a tensor) as written: the value converted to Scalar.
bool isNumber(const Expr *E) {
  const Expr *V = scalarConversionSource(E);
  return V && V->getType()->isArithmeticType();
}

/// The element type spelled for a dtype enumerator name; "" when the fix-it
/// does not handle it (Half, BFloat16, complex).
llvm::StringRef elementSpelling(llvm::StringRef Dtype) {
  return llvm::StringSwitch<llvm::StringRef>(Dtype)
      .Case("Float", "float")
      .Case("Double", "double")
      .Case("Int", "int")
      .Case("Long", "int64_t")
      .Case("Short", "int16_t")
      .Case("Char", "int8_t")
      .Case("Byte", "uint8_t")
      .Case("Bool", "bool")
      .Default("");
}

/// The number of elements of the braced list \p E (`{h, w}` as an
/// IntArrayRef), 0 when \p E is no braced list.
unsigned bracedCount(const Expr *E) {
  E = skipImplicitTemporaries(E);
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    if (const auto *IL = dyn_cast<InitListExpr>(E))
      return IL->getNumInits();
    if (const auto *SI = dyn_cast<CXXStdInitializerListExpr>(E))
      E = skipImplicitTemporaries(SI->getSubExpr());
    else if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
      E = skipImplicitTemporaries(CE->getArg(0));
    else
      return 0;
  }
  return 0;
}

/// What the function knows of a local tensor made by a sized factory and
/// never assigned again: its rank (from a braced size), its dtype ("" when
/// unknown) when it is on the CPU.
struct KnownTensor {
  unsigned Rank = 0;
  llvm::StringRef Dtype;
};

/// The dtype that the options argument \p Arg of a factory gives, "" when
/// unknown or when the options may name a device: a ScalarType constant, or
/// the default `{}` (float) or `at::kLong` (randint).
llvm::StringRef factoryDtype(const Expr *Arg) {
  const Expr *E = Arg;
  if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg)) {
    E = Default->getExpr();
    if (const auto *IL = dyn_cast<InitListExpr>(skipImplicitTemporaries(E));
        IL && IL->getNumInits() == 0)
      return "Float";
    if (const auto *CE = dyn_cast<CXXConstructExpr>(skipImplicitTemporaries(E));
        CE && CE->getNumArgs() == 0)
      return "Float";
  }
  const EnumConstantDecl *EC = scalarTypeConstant(E);
  return EC ? EC->getName() : "";
}

KnownTensor knownTensor(const ValueDecl *V, const Stmt *Body) {
  const auto *VD = dyn_cast_or_null<VarDecl>(V);
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || VD->getType()->isReferenceType() ||
      !VD->getInit() || isAssignedWithin(VD, Body))
    return {};
  const auto *Call = dyn_cast<CallExpr>(
      stripWrappers(VD->getInit(), wrappers::Temporaries | wrappers::Constructions));
  std::optional<unsigned> Options = sizedFactoryOptionsParam(Call);
  if (!Options || *Options >= Call->getNumArgs())
    return {};
  KnownTensor K;
  for (unsigned I = 0; I < *Options && !K.Rank; ++I)
    K.Rank = bracedCount(Call->getArg(I));
  K.Dtype = factoryDtype(Call->getArg(*Options));
  return K;
}

} // namespace

/// One access of a tensor's element.
struct ElementwiseAccessInLoopCheck::Access {
  const Expr *Root = nullptr;              ///< the outermost indexing step
  const ValueDecl *Tensor = nullptr;       ///< the tensor indexed
  const Expr *Base = nullptr;              ///< its name, as written
  llvm::SmallVector<const Expr *, 4> Indices; ///< in source order
  const CXXMemberCallExpr *Item = nullptr; ///< `.item<T>()` on Root itself
  const Expr *Written = nullptr;           ///< the number assigned to Root (`=`, `+=`...)
  bool IndexPut = false;                   ///< t.index_put_({...}, v)
  bool ThroughRow = false;                 ///< read through a row variable (`auto r = t[i]; r[0]`)
  bool Converted = false;                  ///< item() of a conversion (`t[i].to(kLong).item()`)
  /// The container's index when the tensor is an element of a container
  /// (`outputs[0][i][k]`: Tensor is `outputs`, this is `0`).
  const Expr *ElementIndex = nullptr;
  /// A call of a helper that reads or writes one element per call (Root is
  /// the call, Indices the arguments its index comes from): the helper's own
  /// access.
  const Expr *InHelper = nullptr;
};

/// The accesses of one tensor in one loop.
struct ElementwiseAccessInLoopCheck::Finding {
  const Stmt *Loop = nullptr;
  const ValueDecl *Tensor = nullptr;
  llvm::SmallVector<Access, 4> Accesses;
};

namespace {

/// The tensor variable \p E names: namedVariable's, or a structured binding
/// (`auto [policy, value] = net(x); policy[i].item()`).
const ValueDecl *namedTensor(const Expr *E) {
  if (const ValueDecl *V = namedVariable(E))
    return V;
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E ? stripCopies(E) : nullptr);
  return DRE ? dyn_cast<BindingDecl>(DRE->getDecl()) : nullptr;
}

/// `v[k]` or `v.at(k)` with an integer \p Index on a named container of
/// tensors (a std::vector<torch::Tensor>, a TensorList): the container's
/// variable; null otherwise.
const ValueDecl *containerElement(const Expr *E, const Expr *&Index) {
  const Expr *Object = containerSlot(E, Index);
  if (!Object || isTensorType(Object->getType()) ||
      !Index->IgnoreImpCasts()->getType()->isIntegerType())
    return nullptr;
  return namedVariable(Object);
}

/// Parses the chain of indexing steps ending at \p Root into \p A (base and
/// indices); false when the base names no tensor variable (or element of a
/// container variable).
bool parseChain(const Expr *Root, ElementwiseAccessInLoopCheck::Access &A) {
  llvm::SmallVector<llvm::SmallVector<const Expr *, 2>, 4> Steps;
  const Expr *E = Root;
  for (unsigned Depth = 0; Depth < MaxChain; ++Depth) {
    llvm::SmallVector<const Expr *, 2> Step;
    const Expr *Next = tensorIntegerIndexStep(E, Step);
    if (!Next)
      break;
    Steps.push_back(std::move(Step));
    E = skipImplicitTemporaries(Next);
  }
  if (Steps.empty() || indexStep(E) || !isTensorType(E->getType()))
    return false;
  A.Root = Root;
  A.Base = E;
  A.Tensor = namedTensor(E);
  if (!A.Tensor)
    A.Tensor = containerElement(E, A.ElementIndex);
  for (auto It = Steps.rbegin(); It != Steps.rend(); ++It)
    A.Indices.append(It->begin(), It->end());
  return A.Tensor != nullptr;
}

/// The access \p A of a row variable (`auto bbox = dets[i]; bbox[0].item()`)
/// as an access of the tensor the row was taken from, its indices first:
/// the row is a view, so every access through it is one of `dets`. None when
/// the tensor of \p A is no local initialised by integer indexing steps on
/// a named tensor, or is assigned again in \p Body.
std::optional<ElementwiseAccessInLoopCheck::Access>
throughRow(const ElementwiseAccessInLoopCheck::Access &A, const Stmt *Body) {
  const auto *VD = dyn_cast_or_null<VarDecl>(A.Tensor);
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit() ||
      isAssignedWithin(VD, Body))
    return std::nullopt;
  const Expr *Init = stripWrappers(VD->getInit(), wrappers::Temporaries | wrappers::Constructions);
  ElementwiseAccessInLoopCheck::Access Taken;
  if (!indexStep(Init) || !parseChain(Init, Taken) || Taken.Tensor == VD)
    return std::nullopt;
  // The same use of the element, of the tensor the row was taken from.
  ElementwiseAccessInLoopCheck::Access Row = A;
  Row.Tensor = Taken.Tensor;
  Row.Base = Taken.Base;
  Row.Indices = std::move(Taken.Indices);
  Row.Indices.append(A.Indices.begin(), A.Indices.end());
  Row.ThroughRow = true;
  return Row;
}

/// How the chain \p Root is used: true when it reaches one number (item, a
/// number assigned (not to a row of a tensor of known rank), a comparison or arithmetic with a number then item, or
/// all \p Rank dimensions indexed), recording an item or a write in \p A.
bool reachesElement(ElementwiseAccessInLoopCheck::Access &A, unsigned Rank, const ParentMap &PM) {
  // Fewer indices than dimensions: a row (`m[i] = 0` fills one).
  if (Rank != 0 && A.Indices.size() < Rank)
    return false;
  // Its item(), directly or of a conversion (`gis[i].to(kLong).item()`).
  const Expr *Read = nullptr;
  if (const CXXMemberCallExpr *Item = itemThroughConversions(A.Root, PM, Read)) {
    A.Item = Item;
    A.Converted = Read != A.Root;
    return true;
  }
  if (Read != A.Root)
    return false;
  const Stmt *P = userOf(A.Root, PM);
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P); Op && Op->getNumArgs() == 2) {
    const Expr *Other =
        skipImplicitTemporaries(Op->getArg(0)) == A.Root ? Op->getArg(1) : Op->getArg(0);
    if (Op->isAssignmentOp() && skipImplicitTemporaries(Op->getArg(0)) == A.Root &&
        isNumber(Other)) {
      A.Written = scalarConversionSource(Other);
      return true;
    }
    const auto *Item = dyn_cast_or_null<CXXMemberCallExpr>(userOf(Op, PM));
    if (!Op->isAssignmentOp() && isNumber(Other) && Item && tensorMethodName(Item) == "item")
      return true;
  }
  return Rank != 0 && A.Indices.size() == Rank;
}

/// The variables that \p Loop counts with: those its increment changes (a
/// for loop), its loop variable (a range-for over integers, `c10::irange`, or
/// over values that hold no tensor), those its condition reads and its body changes (while,
/// do, a for loop without an increment).
llvm::SmallVector<const VarDecl *, 2> inductionVariables(const Stmt *Loop) {
  llvm::SmallVector<const VarDecl *, 2> Vars;
  auto AddInteger = [&](const Expr *E) {
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && VD->getType().getNonReferenceType()->isIntegerType() && !llvm::is_contained(Vars, VD))
        Vars.push_back(VD);
  };
  if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop)) {
    // Integers (`c10::irange`), and the elements of a container of values
    // that are no tensors, whose fields index (`for (auto &r : results)
    // rewards[r.env] = r.reward;`).
    const VarDecl *V = RF->getLoopVariable();
    if (V->getType().getNonReferenceType()->isIntegerType() || !mayHoldTensor(V->getType()))
      Vars.push_back(V);
    return Vars;
  }
  const auto *For = dyn_cast<ForStmt>(Loop);
  if (For && For->getInc()) {
    forEachStmt(For->getInc(), [&](const Stmt *S) {
      if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && UO->isIncrementDecrementOp())
        AddInteger(UO->getSubExpr());
      if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
        AddInteger(BO->getLHS());
    });
    return Vars;
  }
  const Expr *Cond = For ? For->getCond() : nullptr;
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Cond = W->getCond();
  if (const auto *D = dyn_cast<DoStmt>(Loop))
    Cond = D->getCond();
  forEachStmt(Cond, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && isAssignedWithin(VD, loopBody(Loop)))
        AddInteger(DRE);
  });
  return Vars;
}

/// True when an index of \p A reads one of \p Vars, or a variable declared
/// in \p Loop whose initializer reads one (`int k = y * w + x; t[k]`).
bool indicesUse(const ElementwiseAccessInLoopCheck::Access &A, llvm::ArrayRef<const VarDecl *> Vars,
                const Stmt *Loop, const SourceManager &SM) {
  // A name of a structured binding of the range-for's element (`for (auto &[move, prob] :
  // moves)`) reads the element.
  auto ReadsVar = [&](const Stmt *Root) {
    return anyStmt(Root, [&](const Stmt *S) {
      const auto *DRE = dyn_cast<DeclRefExpr>(S);
      if (!DRE)
        return false;
      const ValueDecl *D = DRE->getDecl();
      if (const auto *Binding = dyn_cast<BindingDecl>(D))
        D = Binding->getDecomposedDecl();
      return D && llvm::is_contained(Vars, D);
    });
  };
  for (const Expr *Index : A.Indices)
    if (ReadsVar(Index) || anyStmt(Index, [&](const Stmt *S) {
          const auto *DRE = dyn_cast<DeclRefExpr>(S);
          const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
          return VD && VD->getInit() && !outlivesIteration(VD, Loop, SM) && ReadsVar(VD->getInit());
        }))
      return true;
  return false;
}

/// `e.to(...)` of an indexing step `e` whose value only reaches item()
/// (`gis[i].to(kLong).item()`): reading one element.
bool isConvertedElementRead(const CallExpr *Call, const ParentMap &PM) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const Expr *Read = nullptr;
  return isElementConversion(MC) &&
         itemThroughConversions(skipImplicitTemporaries(MC->getImplicitObjectArgument()), PM,
                                Read) &&
         Read == MC;
}

/// LibTorch calls that are part of element access (not tensor work).
bool isElementOrQueryCall(const CallExpr *Call, const ParentMap &PM) {
  const Expr *ElementIndex = nullptr;
  if (isa<CXXOperatorCallExpr>(Call) || indexStep(Call) || isConvertedElementRead(Call, PM) ||
      containerElement(Call, ElementIndex))
    return true;
  llvm::StringRef Name = tensorMethodName(Call);
  return llvm::is_contained({"item", "index_put_", "size", "sizes", "dim", "numel", "accessor",
                             "data_ptr", "scalar_type", "is_contiguous", "defined", "device"},
                            Name);
}

/// True when \p Loop does tensor work of its own on each iteration: a forward
/// pass, a LibTorch call that makes or changes a tensor other than element
/// access, or a call of the user's that takes or returns a tensor (other than
/// \p ElementHelpers, helpers that only access an element).
bool doesTensorWork(const Stmt *Loop, const ParentMap &PM,
                    const llvm::SmallPtrSetImpl<const Expr *> *ElementHelpers = nullptr) {
  return anyStmt(
      Loop,
      [&](const Stmt *S) {
        const auto *Call = dyn_cast<CallExpr>(S);
        const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
        if (!Call || isElementOrQueryCall(Call, PM) ||
            (ElementHelpers && ElementHelpers->contains(Call)))
          return false;
        if (isForwardCall(Call))
          return true;
        if (!FD)
          return mayHoldTensor(Call->getType());
        bool TensorArg = llvm::any_of(Call->arguments(),
                                      [](const Expr *Arg) { return isTensorType(Arg->getType()); });
        if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
          TensorArg |= isTensorType(MC->getImplicitObjectArgument()->getType());
        return (TensorArg || isTensorType(Call->getType())) &&
               (isInLibraryNamespace(FD) || !FD->isInStdNamespace());
      },
      [](const Stmt *S) { return isa<LambdaExpr>(S); });
}

} // namespace

void ElementwiseAccessInLoopCheck::onStartOfTranslationUnit() {
  CoreCheck::onStartOfTranslationUnit();
  Reported.clear();
  Helpers.clear();
}

namespace {

/// The element accesses of \p Body (lambdas included: their loops are their
/// own), in source order.
llvm::SmallVector<ElementwiseAccessInLoopCheck::Access, 8>
collectAccesses(const Stmt *Body, const ParentMap &PM) {
  llvm::SmallVector<ElementwiseAccessInLoopCheck::Access, 8> Accesses;
  llvm::DenseMap<const ValueDecl *, KnownTensor> Known;
  forEachStmt(Body, [&](const Stmt *S) {
    const auto *E = dyn_cast<Expr>(S);
    ElementwiseAccessInLoopCheck::Access A;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
      llvm::SmallVector<const Expr *, 4> Indices;
      const Expr *Value = tensorIndexPutScalar(MC, Indices);
      const Expr *Base = skipImplicitTemporaries(MC->getImplicitObjectArgument());
      if (Value && Value->getType()->isArithmeticType() && isTensorType(Base->getType()) &&
          (A.Tensor = namedTensor(Base))) {
        A.Root = MC;
        A.Base = Base;
        A.Indices = std::move(Indices);
        A.IndexPut = true;
        Accesses.push_back(std::move(A));
        return;
      }
    }
    if (!E || !indexStep(E))
      return;
    // Not the outermost step: its parent indexes it further.
    if (const auto *P = dyn_cast_or_null<Expr>(userOf(E, PM));
        P && indexStep(P) && skipImplicitTemporaries(indexStep(P)) == E)
      return;
    if (!parseChain(E, A))
      return;
    auto [It, New] = Known.try_emplace(A.Tensor);
    if (New)
      It->second = knownTensor(A.Tensor, Body);
    if (reachesElement(A, It->second.Rank, PM))
      Accesses.push_back(std::move(A));
  });
  return Accesses;
}

/// The body indexes something: a subscript, `index` or `index_put_` (the
/// cheap test before collectAccesses).
bool mayAccessElements(const FunctionFacts &Facts) {
  return Facts.usesOperator(OO_Subscript) ||
         Facts.callsNamed([](llvm::StringRef N) { return N == "index" || N == "index_put_"; });
}

} // namespace

/// An access of a helper, outside any loop of its own, to an element of a
/// data member or of a tensor parameter, indexed by parameters only.
struct ElementwiseAccessInLoopCheck::HelperAccess {
  ElementwiseAccessInLoopCheck::Access A;
  llvm::SmallVector<unsigned, 2> IndexParams; ///< the parameters the indices read
  int TensorParam = -1;                       ///< the tensor's parameter, or -1 (a member)
};

namespace {
using HelperAccess = ElementwiseAccessInLoopCheck::HelperAccess;

/// The element accesses of the helper \p FD that each call makes once: its
/// body does no tensor work other than them (no forward pass, no other
/// LibTorch operation), the access is in no loop of its own, its tensor is a
/// data member or a parameter, and its indices read parameters only
/// (`int step(size_t env) { return actions_[env].item<int64_t>(); }`).
std::vector<HelperAccess> helperAccesses(const FunctionDecl *FD, const FunctionFacts &Facts) {
  std::vector<HelperAccess> Found;
  const Stmt *Body = Facts.body();
  if (!Body || !mayAccessElements(Facts))
    return Found;
  const ParentMap &PM = Facts.parents();
  if (doesTensorWork(Body, PM))
    return Found;
  for (ElementwiseAccessInLoopCheck::Access &A : collectAccesses(Body, PM)) {
    if (enclosingLoop(A.Root, PM, Body) || A.ElementIndex || A.Indices.empty())
      continue;
    HelperAccess H;
    if (const auto *P = dyn_cast<ParmVarDecl>(A.Tensor))
      H.TensorParam = int(P->getFunctionScopeIndex());
    else if (!isa<FieldDecl>(A.Tensor) || !isa<CXXMethodDecl>(FD))
      continue;
    bool OnlyParams = true;
    for (const Expr *Index : A.Indices)
      forEachStmt(Index, [&](const Stmt *S) {
        const auto *DRE = dyn_cast<DeclRefExpr>(S);
        if (!DRE || !isa<VarDecl>(DRE->getDecl()))
          return;
        if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl());
            P && P->getDeclContext() == FD && int(P->getFunctionScopeIndex()) != H.TensorParam) {
          if (!llvm::is_contained(H.IndexParams, P->getFunctionScopeIndex()))
            H.IndexParams.push_back(P->getFunctionScopeIndex());
        } else {
          OnlyParams = false;
        }
      });
    if (!OnlyParams || H.IndexParams.empty())
      continue;
    H.A = std::move(A);
    Found.push_back(std::move(H));
  }
  return Found;
}

} // namespace

void ElementwiseAccessInLoopCheck::appendHelperCalls(const FunctionDecl *FD, const Stmt *Body,
                                                     ASTContext &Ctx,
                                                     llvm::SmallVectorImpl<Access> &Accesses) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  for (const auto &[Call, Declared] : Facts.userFunctionCalls()) {
    const FunctionDecl *Callee = Declared->getDefinition();
    if (!Callee || !Callee->hasBody() || Callee == FD->getDefinition() ||
        !isUserFunction(Callee, Ctx) || isVirtualDispatch(Call) ||
        !enclosingLoop(Call, Facts.parents(), Body))
      continue;
    auto [It, New] = Helpers.try_emplace(Callee);
    if (New)
      It->second = std::make_shared<std::vector<HelperAccess>>(
          helperAccesses(Callee, core().facts(Callee, Ctx)));
    for (const HelperAccess &H : *It->second) {
      Access A;
      A.Root = Call;
      A.InHelper = H.A.Root;
      if (H.TensorParam >= 0) {
        // The tensor handed to the helper, named in the caller.
        A.Base = argumentFor(Call, unsigned(H.TensorParam));
        A.Tensor = A.Base ? namedTensor(A.Base) : nullptr;
      } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
                 MC && isa<CXXThisExpr>(MC->getImplicitObjectArgument()->IgnoreParenImpCasts())) {
        // A data member of this object.
        A.Tensor = H.A.Tensor;
      }
      for (unsigned Param : H.IndexParams)
        if (const Expr *Arg = argumentFor(Call, Param))
          A.Indices.push_back(Arg);
      if (A.Tensor && A.Indices.size() == H.IndexParams.size())
        Accesses.push_back(std::move(A));
    }
  }
}

void ElementwiseAccessInLoopCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body,
                                                 ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  llvm::SmallVector<Access, 8> Accesses;
  if (mayAccessElements(Facts))
    Accesses = collectAccesses(Body, Facts.parents());
  // Helpers called in a loop that access one element per call.
  if (!Facts.userFunctionCalls().empty())
    appendHelperCalls(FD, Body, Ctx, Accesses);
  if (Accesses.empty())
    return;
  const ParentMap &PM = Facts.parents();
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallPtrSet<const Expr *, 4> ElementHelpers;
  for (const Access &A : Accesses)
    if (A.InHelper)
      ElementHelpers.insert(A.Root);
  llvm::DenseMap<const Stmt *, llvm::SmallVector<const VarDecl *, 2>> Induction;
  llvm::DenseMap<const Stmt *, bool> Work;
  llvm::MapVector<std::pair<const Stmt *, const ValueDecl *>, Finding> Findings;
  // The loop an access is reported at, from the innermost out (the file
  // comment's "decide"); null when none.
  auto ChooseLoop = [&](const Access &A) -> const Stmt * {
    const Stmt *CodeBody = enclosingCodeBody(A.Root, PM, Body);
    const Stmt *Chosen = nullptr;
    for (const Stmt *L = enclosingLoop(A.Root, PM, CodeBody); L; L = enclosingLoop(L, PM, CodeBody)) {
      if (!outlivesIteration(A.Tensor, L, SM) || isAssignedWithin(A.Tensor, L))
        break;
      // A container's element: the same tensor while the loop keeps its index.
      if (A.ElementIndex && anyStmt(A.ElementIndex, [&](const Stmt *S) {
            const auto *DRE = dyn_cast<DeclRefExpr>(S);
            const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
            return VD && (!outlivesIteration(VD, L, SM) || isAssignedWithin(VD, L));
          }))
        break;
      auto [W, NewW] = Work.try_emplace(L, false);
      if (NewW)
        W->second = doesTensorWork(L, PM, &ElementHelpers);
      if (W->second)
        break;
      auto [I, NewI] = Induction.try_emplace(L);
      if (NewI)
        I->second = inductionVariables(L);
      if (indicesUse(A, I->second, L, SM))
        Chosen = L;
    }
    return Chosen;
  };
  for (Access &A : Accesses) {
    const Stmt *Chosen = ChooseLoop(A);
    // A row taken in the loop (`auto bbox = dets[i];`) changes every
    // iteration; its elements are those of the tensor it was taken from.
    if (std::optional<Access> Row = !Chosen ? throughRow(A, Body) : std::nullopt) {
      unsigned Rank = knownTensor(Row->Tensor, Body).Rank;
      if ((Rank == 0 || Row->Indices.size() >= Rank) && (Chosen = ChooseLoop(*Row)))
        A = std::move(*Row);
    }
    if (!Chosen)
      continue;
    Finding &F = Findings[{Chosen, A.Tensor}];
    F.Loop = Chosen;
    F.Tensor = A.Tensor;
    F.Accesses.push_back(std::move(A));
  }
  NamesGiven.clear();
  for (auto &[Key, F] : Findings)
    if (Reported.insert(F.Accesses.front().Root->getExprLoc()).second)
      diagnose(F, FD, Body, Ctx);
}

namespace {

/// A for loop's counter that is never negative: declared in the init
/// statement from an integer literal, changed by `++`/`+= literal` in the
/// increment only.
bool isCountingUpCounter(const VarDecl *V, const ParentMap &PM, const Stmt *From) {
  for (const Stmt *L = enclosingLoop(From, PM); L; L = enclosingLoop(L, PM)) {
    const auto *For = dyn_cast<ForStmt>(L);
    const auto *Init = For ? dyn_cast_or_null<DeclStmt>(For->getInit()) : nullptr;
    if (!Init || !Init->isSingleDecl() || Init->getSingleDecl() != V)
      continue;
    if (!V->getInit() || !isa<IntegerLiteral>(skipImplicitTemporaries(V->getInit())) ||
        isAssignedWithin(V, For->getBody()))
      return false;
    const auto *Inc = dyn_cast_or_null<Expr>(For->getInc());
    Inc = Inc ? Inc->IgnoreParenImpCasts() : nullptr;
    if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc))
      return UO->isIncrementOp();
    const auto *BO = dyn_cast_or_null<CompoundAssignOperator>(Inc);
    return BO && BO->getOpcode() == BO_AddAssign &&
           isa<IntegerLiteral>(skipImplicitTemporaries(BO->getRHS()));
  }
  return false;
}

/// An index the accessor reads as the tensor does: a literal, or a counter.
bool isPlainIndex(const Expr *Index, const ParentMap &PM, const Stmt *Access) {
  const Expr *E = Index->IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(E))
    return true;
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  return VD && isCountingUpCounter(VD, PM, Access);
}

/// The text of \p E's range in the main file, "" when in a macro.
std::string textOf(const Expr *E, const SourceManager &SM, const LangOptions &LO) {
  CharSourceRange R = Lexer::makeFileCharRange(CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
  return R.isValid() ? Lexer::getSourceText(R, SM, LO).str() : "";
}

/// True when \p Name is free in \p FD: no declaration or name of the body,
/// no parameter, spells it.
bool nameIsFree(llvm::StringRef Name, const FunctionDecl *FD, const Stmt *Body) {
  for (const ParmVarDecl *P : FD->parameters())
    if (P->getName() == Name)
      return false;
  return !anyStmt(Body, [&](const Stmt *S) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      return DRE->getDecl()->getDeclName().getAsString() == Name;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D); ND && ND->getDeclName().getAsString() == Name)
          return true;
    return false;
  });
}

/// True when the access \p A can read or write the accessor instead: every
/// dimension indexed plainly, `.item<T>()` of the element type or a number
/// of the element type (or a literal) assigned.
bool accessRewrites(const ElementwiseAccessInLoopCheck::Access &A, const KnownTensor &K,
                    const ParentMap &PM, const ASTContext &Ctx) {
  if (A.IndexPut || A.Indices.size() != K.Rank ||
      !llvm::all_of(A.Indices, [&](const Expr *I) { return isPlainIndex(I, PM, A.Root); }))
    return false;
  if (A.Item) {
    const CXXMethodDecl *MD = A.Item->getMethodDecl();
    const TemplateArgumentList *Args = MD ? MD->getTemplateSpecializationArgs() : nullptr;
    return Args && Args->size() == 1 && Args->get(0).getKind() == TemplateArgument::Type &&
           scalarTypeOfElement(Args->get(0).getAsType(), Ctx) == K.Dtype;
  }
  if (!A.Written)
    return false;
  if (isa<IntegerLiteral>(A.Written))
    return true;
  if (isa<FloatingLiteral>(A.Written))
    return K.Dtype == "Float" || K.Dtype == "Double";
  return scalarTypeOfElement(A.Written->getType(), Ctx) == K.Dtype;
}

/// True when every use of \p V in \p Loop is the base of one of \p Accesses
/// or the object of a size query.
bool onlyAccessedIn(const ValueDecl *V, const Stmt *Loop,
                    llvm::ArrayRef<ElementwiseAccessInLoopCheck::Access> Accesses, const ParentMap &PM) {
  return !anyStmt(Loop, [&](const Stmt *S) {
    const auto *DRE = dyn_cast<DeclRefExpr>(S);
    if (!DRE || DRE->getDecl() != V)
      return false;
    if (llvm::any_of(Accesses, [&](const auto &A) { return A.Base == DRE; }))
      return false;
    const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(userOf(DRE, PM));
    return !Call || !llvm::is_contained({"size", "sizes", "dim", "numel"}, tensorMethodName(Call));
  });
}

} // namespace

std::vector<FixItHint> ElementwiseAccessInLoopCheck::accessorFix(const Finding &F, const FunctionDecl *FD,
                                                                 const Stmt *Body, ASTContext &Ctx) {
  const ParentMap &PM = core().facts(FD, Ctx).parents();
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = getLangOpts();
  KnownTensor K = knownTensor(F.Tensor, Body);
  llvm::StringRef Element = elementSpelling(K.Dtype);
  // A name of its own per loop: `img_acc`, then `img_acc2` for the next loop
  // of the function over img.
  std::string Name = (F.Tensor->getName() + "_acc").str();
  for (unsigned N = 2; llvm::is_contained(NamesGiven, Name); ++N)
    Name = (F.Tensor->getName() + "_acc" + llvm::Twine(N)).str();
  if (FD->isTemplated() || FD->isTemplateInstantiation() || !K.Rank || Element.empty() ||
      !isa_and_nonnull<CompoundStmt>(PM.getParent(F.Loop)) || compat::beginLoc(F.Loop).isMacroID() ||
      !onlyAccessedIn(F.Tensor, F.Loop, F.Accesses, PM) || !nameIsFree(Name, FD, Body))
    return {};
  std::vector<FixItHint> Fixes;
  Fixes.push_back(FixItHint::CreateInsertion(
      compat::beginLoc(F.Loop), "auto " + Name + " = " + F.Tensor->getName().str() + ".accessor<" +
                                    Element.str() + ", " + std::to_string(K.Rank) + ">();\n" +
                                    indentationAt(compat::beginLoc(F.Loop), SM)));
  for (const Access &A : F.Accesses) {
    if (A.ThroughRow || A.Converted || !accessRewrites(A, K, PM, Ctx))
      return {};
    std::string Text = Name;
    for (const Expr *Index : A.Indices) {
      std::string I = textOf(Index, SM, LO);
      if (I.empty())
        return {};
      Text += "[" + I + "]";
    }
    const Expr *Replaced = A.Item ? static_cast<const Expr *>(A.Item) : A.Root;
    CharSourceRange R =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Replaced->getSourceRange()), SM, LO);
    if (R.isInvalid() || Replaced->getBeginLoc().isMacroID() || Replaced->getEndLoc().isMacroID())
      return {};
    Fixes.push_back(FixItHint::CreateReplacement(R, Text));
  }
  NamesGiven.push_back(Name);
  return Fixes;
}

void ElementwiseAccessInLoopCheck::diagnose(const Finding &F, const FunctionDecl *FD, const Stmt *Body,
                                            ASTContext &Ctx) {
  const Access &First = F.Accesses.front();
  // A container's element by its spelling (`outputs[0]`).
  std::string Named = First.ElementIndex ? textOf(First.Base, Ctx.getSourceManager(), getLangOpts())
                                         : std::string();
  if (Named.empty())
    Named = F.Tensor->getName().str();
  {
    auto D = diag(compat::beginLoc(First.Root),
                  "tensor '%0' is accessed element by element in a loop: each access is a "
                  "dispatcher call that makes a tensor for one number; read and write the "
                  "elements through an accessor ('%0.accessor<T, N>()', CPU) or the "
                  "data_ptr<T>() of a contiguous tensor")
             << Named << First.Root->getSourceRange();
    for (const FixItHint &Fix : accessorFix(F, FD, Body, Ctx))
      D << Fix;
  }
  if (First.InHelper)
    diag(compat::beginLoc(First.InHelper), "'%0' accesses one element of it per call here",
         DiagnosticIDs::Note)
        << cast<CallExpr>(First.Root)->getDirectCallee()->getName();
  diag(compat::beginLoc(F.Loop), "the loop is here", DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch_check
