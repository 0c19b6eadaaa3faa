//===--- ExecutionOrder.cpp - libtorch-tidy -------------------------------===//

#include "ExecutionOrder.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

ExecutionOrder::ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx)
    : Ctx(Ctx), Body(Body) {
  if (!Body)
    return;
  build(D, Body);
  // Built even without a CFG here: the lambda bodies get their own try.
  OwnPM = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
  PM = OwnPM.get();
}

ExecutionOrder::ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx,
                               const ParentMap &Shared)
    : Ctx(Ctx), Body(Body), PM(&Shared) {
  if (Body)
    build(D, Body);
}

ExecutionOrder::ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx,
                               const ExecutionOrder &Owner)
    : Ctx(Ctx), Body(Body), Owner(&Owner), PM(Owner.PM) {
  if (Body && PM)
    build(D, Body);
}

void ExecutionOrder::build(const Decl *D, const Stmt *Body) {
  CFG::BuildOptions Opts;
  Opts.setAllAlwaysAdd();
  Opts.AddImplicitDtors = false;
  Opts.AddTemporaryDtors = false;
  Graph = CFG::buildCFG(D, const_cast<Stmt *>(Body), &Ctx, Opts);
  if (!Graph)
    return;
  ById.assign(Graph->getNumBlockIDs(), nullptr);
  for (const CFGBlock *B : *Graph) {
    ById[B->getBlockID()] = B;
    unsigned Index = 0;
    for (const CFGElement &E : *B) {
      if (auto S = E.getAs<CFGStmt>())
        Elements.try_emplace(S->getStmt(), Position{B->getBlockID(), Index});
      ++Index;
    }
  }
  // A terminator (if, loop, switch) runs after its block's elements.
  for (const CFGBlock *B : *Graph)
    if (const Stmt *T = B->getTerminatorStmt())
      Elements.try_emplace(T, Position{B->getBlockID(), static_cast<unsigned>(B->size())});
  Dom = std::make_unique<CFGDomTree>(Graph.get());
}

ExecutionOrder::~ExecutionOrder() = default;

std::optional<ExecutionOrder::Position> ExecutionOrder::place(const Stmt *S) const {
  if (!Graph || !S)
    return std::nullopt;
  while (S) {
    if (auto It = Elements.find(S); It != Elements.end())
      return It->second;
    const Stmt *Parent = PM->getParent(S);
    // The body of a lambda runs where the lambda is called.
    if (isa_and_nonnull<LambdaExpr>(Parent))
      return std::nullopt;
    S = Parent;
  }
  return std::nullopt;
}

std::optional<const LambdaExpr *> ExecutionOrder::lambdaAround(const Stmt *S) const {
  if (!PM || !S)
    return std::nullopt;
  const Stmt *Child = S;
  for (const Stmt *P = PM->getParent(S); P; Child = P, P = PM->getParent(P))
    if (const auto *L = dyn_cast<LambdaExpr>(P))
      return Child == L->getBody() ? std::optional<const LambdaExpr *>(L) : std::nullopt;
  if (Child != Owner->Body)
    return std::nullopt;
  return static_cast<const LambdaExpr *>(nullptr);
}

const ExecutionOrder &ExecutionOrder::lambdaOrder(const LambdaExpr *L) const {
  std::unique_ptr<ExecutionOrder> &Slot = Owner->Lambdas[L];
  if (!Slot)
    Slot.reset(new ExecutionOrder(L->getCallOperator(), L->getBody(), Ctx, *Owner));
  return *Slot;
}

const ExecutionOrder *ExecutionOrder::orderOf(const Stmt *A, const Stmt *B) const {
  if (!A || !B)
    return nullptr;
  const bool PlacedA = place(A).has_value(), PlacedB = place(B).has_value();
  if (PlacedA && PlacedB)
    return this;
  // Both in one lambda body: the innermost lambda's order. Anything else (a
  // statement in a lambda and one outside it, unreachable code) has none.
  if (PlacedA || PlacedB || Owner != this)
    return nullptr;
  std::optional<const LambdaExpr *> LA = lambdaAround(A);
  if (!LA || !*LA || lambdaAround(B) != LA)
    return nullptr;
  const ExecutionOrder &Sub = lambdaOrder(*LA);
  return Sub.place(A) && Sub.place(B) ? &Sub : nullptr;
}

const CFG *ExecutionOrder::graph(const Stmt *CodeBody) const {
  if (!CodeBody || !PM)
    return nullptr;
  if (CodeBody == Owner->Body)
    return Owner->Graph.get();
  const auto *L = dyn_cast_or_null<LambdaExpr>(PM->getParent(CodeBody));
  if (!L || L->getBody() != CodeBody)
    return nullptr;
  return lambdaOrder(L).Graph.get();
}

const CFGBlock *ExecutionOrder::block(unsigned ID) const {
  return ID < ById.size() ? ById[ID] : nullptr;
}

const CFGBlock *ExecutionOrder::loopHeader(const Stmt *Loop) const {
  if (!Graph || !isa_and_nonnull<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(Loop))
    return nullptr;
  for (const CFGBlock *B : *Graph)
    if (B->getTerminatorStmt() == Loop)
      return B;
  return nullptr;
}

bool ExecutionOrder::mayRunAfter(const Stmt *Later, const Stmt *Earlier) const {
  return reachesAvoiding(Earlier, Later, {});
}

bool ExecutionOrder::dominates(const Stmt *A, const Stmt *B) const {
  const ExecutionOrder *O = orderOf(A, B);
  return O && O->dominatesHere(A, B);
}

bool ExecutionOrder::runsEveryIteration(const Stmt *S, const Stmt *Loop) const {
  const ExecutionOrder *O = orderOf(S, Loop);
  return O && O->runsEveryIterationHere(S, Loop);
}

bool ExecutionOrder::reachesAvoiding(const Stmt *From, const Stmt *To,
                                     llvm::ArrayRef<const Stmt *> Blockers) const {
  const ExecutionOrder *O = orderOf(From, To);
  return O && O->reachesAvoidingHere(From, To, Blockers);
}

bool ExecutionOrder::dominatesHere(const Stmt *A, const Stmt *B) const {
  auto PA = place(A), PB = place(B);
  if (!PA || !PB)
    return false;
  if (PA->Block == PB->Block)
    return PA->Index <= PB->Index;
  return Dom->dominates(block(PA->Block), block(PB->Block));
}

bool ExecutionOrder::runsEveryIterationHere(const Stmt *S, const Stmt *Loop) const {
  const CFGBlock *Header = loopHeader(Loop);
  auto P = place(S);
  if (!Header || !P || Header->succ_empty())
    return false;
  const CFGBlock *BodyEntry = *Header->succ_begin();
  if (!BodyEntry)
    return false;
  // The blocks of one iteration: reachable from the body's entry without
  // passing the loop's condition (for do-while the condition ends them).
  const bool IsDo = isa<DoStmt>(Loop);
  llvm::SmallPtrSet<const CFGBlock *, 16> InLoop;
  llvm::SmallVector<const CFGBlock *, 16> Work{BodyEntry};
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (!B || B == Header || !InLoop.insert(B).second)
      continue;
    for (const CFGBlock *Succ : B->succs())
      Work.push_back(Succ);
  }
  const CFGBlock *SB = block(P->Block);
  if (IsDo)
    InLoop.insert(Header);
  if (!InLoop.contains(SB))
    return false;
  llvm::SmallVector<const CFGBlock *, 4> Latches;
  if (IsDo)
    Latches.push_back(Header);
  else
    for (const CFGBlock *Pred : Header->preds())
      if (Pred && InLoop.contains(Pred))
        Latches.push_back(Pred);
  if (Latches.empty())
    return false;
  for (const CFGBlock *Latch : Latches)
    if (SB != Latch && !Dom->dominates(SB, Latch))
      return false;
  return true;
}

bool ExecutionOrder::reachesAvoidingHere(const Stmt *From, const Stmt *To,
                                         llvm::ArrayRef<const Stmt *> Blockers) const {
  auto PF = place(From), PT = place(To);
  if (!PF || !PT)
    return false;
  return searchAvoiding(PF->Block, PF->Index + 1, *PT, Blockers);
}

bool ExecutionOrder::reachableAvoiding(const Stmt *To,
                                       llvm::ArrayRef<const Stmt *> Blockers) const {
  auto PT = place(To);
  if (!PT)
    return false;
  return searchAvoiding(Graph->getEntry().getBlockID(), 0, *PT, Blockers);
}

bool ExecutionOrder::searchAvoiding(unsigned From, unsigned Start, Position PT,
                                    llvm::ArrayRef<const Stmt *> Blockers) const {
  llvm::DenseMap<unsigned, llvm::SmallVector<unsigned, 2>> BlockerAt;
  for (const Stmt *S : Blockers)
    if (auto P = place(S))
      BlockerAt[P->Block].push_back(P->Index);

  enum class Scan { Found, Blocked, Open };
  auto ScanBlock = [&](unsigned ID, unsigned Begin) {
    std::optional<unsigned> FirstBlocker;
    if (auto It = BlockerAt.find(ID); It != BlockerAt.end())
      for (unsigned I : It->second)
        if (I >= Begin && (!FirstBlocker || I < *FirstBlocker))
          FirstBlocker = I;
    if (ID == PT.Block && PT.Index >= Begin && (!FirstBlocker || PT.Index < *FirstBlocker))
      return Scan::Found;
    return FirstBlocker ? Scan::Blocked : Scan::Open;
  };

  Scan First = ScanBlock(From, Start);
  if (First != Scan::Open)
    return First == Scan::Found;
  llvm::SmallPtrSet<const CFGBlock *, 16> Seen;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  for (const CFGBlock *Succ : block(From)->succs())
    Work.push_back(Succ);
  while (!Work.empty()) {
    const CFGBlock *B = Work.pop_back_val();
    if (!B || !Seen.insert(B).second)
      continue;
    Scan R = ScanBlock(B->getBlockID(), 0);
    if (R == Scan::Found)
      return true;
    if (R == Scan::Blocked)
      continue;
    for (const CFGBlock *Succ : B->succs())
      Work.push_back(Succ);
  }
  return false;
}

} // namespace clang::tidy::torch_check
