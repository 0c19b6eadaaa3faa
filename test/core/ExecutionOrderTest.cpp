//===--- ExecutionOrderTest.cpp - libtorch-tidy ---------------------------===//
//
// The CFG ordering utility (checks/utils/ExecutionOrder.h) on small parsed
// functions: statements are the calls of the marker functions a(), b(), ...

#include "utils/ExecutionOrder.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

using namespace clang;
using namespace clang::tidy::torch_check;

namespace {

const char *Markers = "void a(); void b(); void c(); void train(); void eval(); void use();\n";

struct Parsed {
  std::unique_ptr<ASTUnit> AST;
  const FunctionDecl *F = nullptr;
  std::unique_ptr<ExecutionOrder> Order;

  /// The \p N-th call (in source order) of the function named \p Name in f.
  const CallExpr *call(llvm::StringRef Name, unsigned N = 0) const {
    struct Finder : RecursiveASTVisitor<Finder> {
      llvm::StringRef Name;
      std::vector<const CallExpr *> Found;
      bool VisitCallExpr(CallExpr *C) {
        if (const FunctionDecl *FD = C->getDirectCallee())
          if (FD->getIdentifier() && FD->getName() == Name)
            Found.push_back(C);
        return true;
      }
    } Fd;
    Fd.Name = Name;
    Fd.TraverseStmt(F->getBody());
    return N < Fd.Found.size() ? Fd.Found[N] : nullptr;
  }
  /// The first loop statement of f.
  const Stmt *loop() const {
    struct Finder : RecursiveASTVisitor<Finder> {
      const Stmt *Loop = nullptr;
      bool VisitStmt(Stmt *S) {
        if (!Loop && isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
          Loop = S;
        return true;
      }
    } Fd;
    Fd.TraverseStmt(F->getBody());
    return Fd.Loop;
  }
};

Parsed parse(llvm::StringRef Body) {
  Parsed P;
  std::string Code = std::string(Markers) + "void f(bool c1, bool c2, int n) {\n" + Body.str() + "\n}\n";
  P.AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
  for (const Decl *D : P.AST->getASTContext().getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getName() == "f" && FD->hasBody())
        P.F = FD;
  P.Order = std::make_unique<ExecutionOrder>(P.F, P.F->getBody(), P.AST->getASTContext());
  return P;
}

TEST(ExecutionOrder, StraightLine) {
  Parsed P = parse("a(); b();");
  ASSERT_TRUE(P.Order->valid());
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("b"), P.call("a")));
  EXPECT_FALSE(P.Order->mayRunAfter(P.call("a"), P.call("b")));
  EXPECT_TRUE(P.Order->dominates(P.call("a"), P.call("b")));
  EXPECT_FALSE(P.Order->dominates(P.call("b"), P.call("a")));
}

TEST(ExecutionOrder, SourceOrderIsNotExecutionOrder) {
  // b is written after a but the goto runs it first; a never runs after b.
  Parsed P = parse("goto L2; L1: a(); return; L2: b(); goto L1;");
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("a"), P.call("b")));
  EXPECT_FALSE(P.Order->mayRunAfter(P.call("b"), P.call("a")));
}

TEST(ExecutionOrder, BranchDoesNotDominate) {
  Parsed P = parse("a(); if (c1) b(); c();");
  EXPECT_TRUE(P.Order->dominates(P.call("a"), P.call("b")));
  EXPECT_FALSE(P.Order->dominates(P.call("b"), P.call("c")));
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("c"), P.call("b")));
  // The two branches of an if never run one after the other.
  Parsed Q = parse("if (c1) a(); else b();");
  EXPECT_FALSE(Q.Order->mayRunAfter(Q.call("b"), Q.call("a")));
  EXPECT_FALSE(Q.Order->mayRunAfter(Q.call("a"), Q.call("b")));
}

TEST(ExecutionOrder, TrainInOneBranchEndsTheRegionOnThatBranchOnly) {
  Parsed P = parse("eval(); if (c1) train(); use();");
  EXPECT_TRUE(P.Order->reachesAvoiding(P.call("eval"), P.call("use"), {P.call("train")}));
  Parsed Both = parse("eval(); if (c1) train(); else train(); use();");
  EXPECT_FALSE(Both.Order->reachesAvoiding(Both.call("eval"), Both.call("use"),
                                           {Both.call("train", 0), Both.call("train", 1)}));
  Parsed Straight = parse("eval(); train(); use();");
  EXPECT_FALSE(Straight.Order->reachesAvoiding(Straight.call("eval"), Straight.call("use"),
                                               {Straight.call("train")}));
  // An early return leaves no path around train().
  Parsed Early = parse("eval(); if (c1) return; train(); use();");
  EXPECT_FALSE(Early.Order->reachesAvoiding(Early.call("eval"), Early.call("use"),
                                            {Early.call("train")}));
}

// From the function's entry: does every path run one of the blockers first?
// (torch-missing-eval: an eval() on both branches before the forward pass.)
TEST(ExecutionOrder, EveryPathFromTheEntryPassesABlocker) {
  Parsed Both = parse("if (c1) { eval(); a(); } else { eval(); } use();");
  EXPECT_FALSE(Both.Order->reachableAvoiding(Both.call("use"),
                                             {Both.call("eval", 0), Both.call("eval", 1)}));
  EXPECT_TRUE(Both.Order->reachableAvoiding(Both.call("use"), {Both.call("eval", 0)}));
  Parsed One = parse("if (c1) eval(); use();");
  EXPECT_TRUE(One.Order->reachableAvoiding(One.call("use"), {One.call("eval")}));
  Parsed After = parse("use(); eval();");
  EXPECT_TRUE(After.Order->reachableAvoiding(After.call("use"), {After.call("eval")}));
  // In a loop, the first iteration reaches it before the eval() at its end.
  Parsed Loop = parse("for (int i = 0; i < n; ++i) { use(); eval(); }");
  EXPECT_TRUE(Loop.Order->reachableAvoiding(Loop.call("use"), {Loop.call("eval")}));
  Parsed None = parse("use();");
  EXPECT_TRUE(None.Order->reachableAvoiding(None.call("use"), {}));
}

TEST(ExecutionOrder, LoopBackEdge) {
  Parsed P = parse("for (int i = 0; i < n; ++i) { use(); eval(); }");
  // eval() of one iteration runs before use() of the next.
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("use"), P.call("eval")));
  EXPECT_FALSE(P.Order->dominates(P.call("eval"), P.call("use")));
}

TEST(ExecutionOrder, RunsEveryIteration) {
  Parsed P = parse("for (int i = 0; i < n; ++i) { a(); if (c1) continue; b(); if (c2) c(); }");
  const Stmt *Loop = P.loop();
  ASSERT_NE(Loop, nullptr);
  EXPECT_TRUE(P.Order->runsEveryIteration(P.call("a"), Loop));
  EXPECT_FALSE(P.Order->runsEveryIteration(P.call("b"), Loop)); // skipped by continue
  EXPECT_FALSE(P.Order->runsEveryIteration(P.call("c"), Loop)); // under a condition

  Parsed W = parse("while (c1) { if (c2) break; a(); }");
  EXPECT_TRUE(W.Order->runsEveryIteration(W.call("a"), W.loop())); // break ends the loop

  Parsed D = parse("do { a(); if (c2) b(); } while (c1);");
  EXPECT_TRUE(D.Order->runsEveryIteration(D.call("a"), D.loop()));
  EXPECT_FALSE(D.Order->runsEveryIteration(D.call("b"), D.loop()));

  Parsed Outside = parse("a(); for (int i = 0; i < n; ++i) b();");
  EXPECT_FALSE(Outside.Order->runsEveryIteration(Outside.call("a"), Outside.loop()));
  EXPECT_TRUE(Outside.Order->runsEveryIteration(Outside.call("b"), Outside.loop()));
}

/// The loop inside the \p N-th lambda of f.
const Stmt *loopIn(const Parsed &P, unsigned N = 0) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const LambdaExpr *> Lambdas;
    bool VisitLambdaExpr(LambdaExpr *L) {
      Lambdas.push_back(L);
      return true;
    }
  } Fd;
  Fd.TraverseStmt(P.F->getBody());
  if (N >= Fd.Lambdas.size())
    return nullptr;
  for (const Stmt *S : cast<CompoundStmt>(Fd.Lambdas[N]->getBody())->body())
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
      return S;
  return nullptr;
}

TEST(ExecutionOrder, LambdaBodiesHaveNoPlaceInTheFunctionBody) {
  // A statement in a lambda and one outside it: no order between them.
  Parsed P = parse("auto l = [] { a(); }; b(); l();");
  EXPECT_FALSE(P.Order->isPlaced(P.call("a")));
  EXPECT_FALSE(P.Order->canOrder(P.call("a"), P.call("b")));
  EXPECT_FALSE(P.Order->mayRunAfter(P.call("a"), P.call("b")));
  EXPECT_FALSE(P.Order->mayRunAfter(P.call("b"), P.call("a")));
  EXPECT_FALSE(P.Order->dominates(P.call("b"), P.call("a")));
  EXPECT_TRUE(P.Order->isPlaced(P.call("b")));
  // Two lambdas: no order between their bodies either.
  Parsed Two = parse("auto l = [] { a(); }; auto m = [] { b(); }; l(); m();");
  EXPECT_FALSE(Two.Order->canOrder(Two.call("a"), Two.call("b")));
  EXPECT_FALSE(Two.Order->mayRunAfter(Two.call("b"), Two.call("a")));
}

TEST(ExecutionOrder, ALambdaBodyHasAnOrderOfItsOwn) {
  Parsed P = parse("auto l = [&] { a(); if (c1) return; b(); }; l();");
  const CallExpr *A = P.call("a"), *B = P.call("b");
  EXPECT_FALSE(P.Order->isPlaced(A)); // isPlaced speaks of the function body
  EXPECT_TRUE(P.Order->canOrder(A, B));
  EXPECT_TRUE(P.Order->mayRunAfter(B, A));
  EXPECT_FALSE(P.Order->mayRunAfter(A, B));
  EXPECT_TRUE(P.Order->dominates(A, B));
  EXPECT_FALSE(P.Order->dominates(B, A));
  EXPECT_FALSE(P.Order->reachableAvoiding(B, {})); // from the function's entry: no place

  Parsed R = parse("auto l = [&] { eval(); if (c1) train(); use(); }; l();");
  EXPECT_TRUE(R.Order->reachesAvoiding(R.call("eval"), R.call("use"), {R.call("train")}));
  Parsed E = parse("auto l = [&] { eval(); if (c1) train(); else train(); use(); }; l();");
  EXPECT_FALSE(E.Order->reachesAvoiding(E.call("eval"), E.call("use"),
                                        {E.call("train", 0), E.call("train", 1)}));
  // A blocker outside the lambda body does not stop a path inside it.
  Parsed O = parse("auto l = [&] { eval(); use(); }; train(); l();");
  EXPECT_TRUE(O.Order->reachesAvoiding(O.call("eval"), O.call("use"), {O.call("train")}));
}

TEST(ExecutionOrder, RunsEveryIterationOfALoopInALambda) {
  Parsed P = parse("auto l = [&] { for (int i = 0; i < n; ++i) { a(); if (c1) continue; b(); } };"
                   " l();");
  const Stmt *Loop = loopIn(P);
  ASSERT_NE(Loop, nullptr);
  EXPECT_TRUE(P.Order->canOrder(P.call("a"), Loop));
  EXPECT_TRUE(P.Order->runsEveryIteration(P.call("a"), Loop));
  EXPECT_FALSE(P.Order->runsEveryIteration(P.call("b"), Loop)); // skipped by continue
}

TEST(ExecutionOrder, TheInnermostLambdaBodyAnswers) {
  Parsed P = parse("auto l = [&] { a(); auto m = [&] { b(); c(); }; m(); use(); }; l();");
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("use"), P.call("a")));
  EXPECT_TRUE(P.Order->mayRunAfter(P.call("c"), P.call("b")));
  EXPECT_FALSE(P.Order->canOrder(P.call("a"), P.call("b"))); // outer and inner body
  EXPECT_FALSE(P.Order->mayRunAfter(P.call("b"), P.call("a")));
}

TEST(ExecutionOrder, GraphOfEveryCodeBody) {
  Parsed P = parse("auto l = [&] { a(); }; b(); l();");
  EXPECT_EQ(P.Order->graph(P.F->getBody()) != nullptr, P.Order->valid());
  const Stmt *LambdaBody = nullptr;
  for (const Stmt *S : cast<CompoundStmt>(P.F->getBody())->body())
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      if (const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl()))
        if (const auto *L = dyn_cast_or_null<LambdaExpr>(VD->getInit()->IgnoreImplicit()))
          LambdaBody = L->getBody();
  ASSERT_NE(LambdaBody, nullptr);
  const CFG *G = P.Order->graph(LambdaBody);
  ASSERT_NE(G, nullptr);
  EXPECT_EQ(G, P.Order->graph(LambdaBody)); // built once
  EXPECT_NE(G, P.Order->graph(P.F->getBody()));
  EXPECT_EQ(P.Order->graph(P.call("b")), nullptr); // not a code body
}

} // namespace
