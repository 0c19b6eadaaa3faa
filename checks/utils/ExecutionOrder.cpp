//===--- ExecutionOrder.cpp - libtorch-tidy -------------------------------===//

#include "ExecutionOrder.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/Analyses/Dominators.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch_check {

ExecutionOrder::ExecutionOrder(const Decl *D, const Stmt *Body, ASTContext &Ctx) {
  if (!Body)
    return;
  CFG::BuildOptions Opts;
  Opts.setAllAlwaysAdd();
  Opts.AddImplicitDtors = false;
  Opts.AddTemporaryDtors = false;
  Graph = CFG::buildCFG(D, const_cast<Stmt *>(Body), &Ctx, Opts);
  if (!Graph)
    return;
  PM = std::make_unique<ParentMap>(const_cast<Stmt *>(Body));
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
  auto PA = place(A), PB = place(B);
  if (!PA || !PB)
    return false;
  if (PA->Block == PB->Block)
    return PA->Index <= PB->Index;
  return Dom->dominates(block(PA->Block), block(PB->Block));
}

bool ExecutionOrder::runsEveryIteration(const Stmt *S, const Stmt *Loop) const {
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

bool ExecutionOrder::reachesAvoiding(const Stmt *From, const Stmt *To,
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
