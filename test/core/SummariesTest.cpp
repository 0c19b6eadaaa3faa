//===--- SummariesTest.cpp - libtorch-tidy --------------------------------===//
//
// Function summaries (checks/utils/Summaries.h) and the per-function facts of
// the analysis core (AnalysisCore.h) on snippets against the mock LibTorch
// headers of test/checks/Inputs.

#include "utils/AnalysisCore.h"
#include "utils/NameParts.h"
#include "utils/Summaries.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <map>

using namespace clang;
using namespace clang::tidy::torch_check;

namespace {

const char *Prelude = R"cpp(
#include <torch/torch.h>
struct NetImpl : torch::nn::Module { torch::Tensor forward(torch::Tensor x); };
TORCH_MODULE(Net);
)cpp";

struct Parsed {
  std::unique_ptr<ASTUnit> AST;
  AnalysisCore Core;
  ASTContext &ctx() { return AST->getASTContext(); }

  /// The user function definition whose qualified name is \p Name (for a
  /// template: any of its analysed definitions).
  const FunctionDecl *function(llvm::StringRef Name) {
    for (const FunctionDecl *FD : Core.userFunctions(ctx()))
      if (FD->getQualifiedNameAsString() == Name)
        return FD;
    return nullptr;
  }
  const FunctionSummary *summary(llvm::StringRef Name) {
    const FunctionDecl *FD = function(Name);
    return FD ? Core.summaries(ctx()).lookup(FD) : nullptr;
  }
};

std::unique_ptr<Parsed> parse(llvm::StringRef Code) {
  auto P = std::make_unique<Parsed>();
  P->AST = tooling::buildASTFromCodeWithArgs(
      std::string(Prelude) + Code.str(),
      {"-std=c++17", "-isystem", LIBTORCH_TIDY_MOCK_HEADERS, "-fsyntax-only"}, "input.cpp");
  EXPECT_FALSE(P->AST->getDiagnostics().hasErrorOccurred());
  return P;
}

TEST(Summaries, EffectsAndDepth) {
  auto P = parse(R"cpp(
void backprop(torch::Tensor l) { l.backward(); }
torch::Tensor lossOf(Net &m, torch::Tensor x) { return m->forward(x).sum(); }
void update(Net &m, torch::optim::SGD &opt, torch::Tensor x) { backprop(lossOf(m, x)); opt.step(); }
void epoch(Net &m, torch::optim::SGD &opt, torch::Tensor x) { update(m, opt, x); }
void run(Net &m, torch::optim::SGD &opt, torch::Tensor x) { epoch(m, opt, x); }
)cpp");
  const FunctionSummary *Backprop = P->summary("backprop");
  const FunctionSummary *Loss = P->summary("lossOf");
  const FunctionSummary *Update = P->summary("update");
  const FunctionSummary *Run = P->summary("run");
  ASSERT_TRUE(Backprop && Loss && Update && Run);
  EXPECT_EQ(Backprop->Backward, 0u);
  EXPECT_TRUE(Backprop->Params[0].ReachesBackward);
  EXPECT_EQ(Loss->Forward, 0u);
  EXPECT_EQ(Loss->Backward, NotReached);
  EXPECT_TRUE(Loss->ReturnsHistory);
  EXPECT_EQ(Update->Backward, 1u);
  EXPECT_EQ(Update->Step, 0u);
  // x reaches backward through lossOf's result and backprop's parameter.
  EXPECT_TRUE(Update->Params[2].ReachesBackward);
  EXPECT_FALSE(Update->Params[1].ReachesBackward);
  EXPECT_EQ(Run->Backward, 3u);
  EXPECT_TRUE(Run->trains(3));
  // The depth limit, applied in one place.
  EXPECT_FALSE(FunctionSummary::reaches(Run->Backward, 2));
  EXPECT_FALSE(Run->trains(1));
  // Bottom-up: callees before callers.
  auto Order = P->Core.summaries(P->ctx()).bottomUpOrder();
  auto Pos = [&](llvm::StringRef Name) {
    return llvm::find(Order, SummaryTable::key(P->function(Name))) - Order.begin();
  };
  EXPECT_LT(Pos("backprop"), Pos("update"));
  EXPECT_LT(Pos("update"), Pos("epoch"));
  EXPECT_LT(Pos("epoch"), Pos("run"));
}

TEST(Summaries, SynchronisesOnEveryCall) {
  auto P = parse(R"cpp(
float value(const torch::Tensor &t) { return t.item<float>(); }
double norm(const std::vector<torch::Tensor> &ps) {
  double s = 0;
  for (const auto &p : ps)
    if (p.grad().defined())
      s += p.grad().sum().item<double>();
  return s;
}
void report(const torch::Tensor &t) { float v = value(t); (void)v; }
void every(int step, const torch::Tensor &t) {
  if (step % 100 != 0)
    return;
  float v = t.item<float>();
  (void)v;
}
void when(bool verbose, const torch::Tensor &t) {
  if (verbose)
    report(t);
}
bool diverged(const torch::Tensor &t) { return t.item<float>() > 1e6f; }
bool check(const torch::Tensor &t) {
  if (value(t) > 1.0f)
    return true;
  return false;
}
)cpp");
  auto Level = [&](llvm::StringRef Name) {
    const FunctionSummary *S = P->summary(Name);
    EXPECT_TRUE(S) << Name.str();
    return S ? S->SyncEveryCall : NotReached;
  };
  EXPECT_EQ(Level("value"), 0u);
  EXPECT_EQ(Level("norm"), 0u);   // once per parameter; a defined() test chooses nothing
  EXPECT_EQ(Level("report"), 1u); // through value()
  EXPECT_EQ(Level("every"), NotReached);    // a return before it skips it
  EXPECT_EQ(Level("when"), NotReached);     // under `if (verbose)`
  EXPECT_EQ(Level("diverged"), 0u);         // its value leaves the function: the caller decides
  EXPECT_EQ(Level("check"), NotReached);    // the helper's value decides a branch here
  EXPECT_EQ(P->summary("every")->Sync, 0u); // "may synchronise" stays as it was

  // The site a note points at: the body's own, else the one reached through
  // the first call that synchronises on every call, within the depth.
  const SummaryTable &Table = P->Core.summaries(P->ctx());
  auto Own = [&](llvm::StringRef Name) {
    return cast<CallExpr>(P->Core.facts(P->function(Name), P->ctx()).of(Fact::Sync)[0]->S);
  };
  EXPECT_EQ(Table.everyCallSync(P->function("value"), 0).Sync, Own("value"));
  EXPECT_EQ(Table.everyCallSync(P->function("value"), 0).In, P->function("value"));
  EXPECT_EQ(Table.everyCallSync(P->function("report"), 0).Sync, nullptr);
  EXPECT_EQ(Table.everyCallSync(P->function("report"), 1).Sync, Own("value"));
  EXPECT_EQ(Table.everyCallSync(P->function("report"), MaxCallDepth).In, P->function("value"));
  EXPECT_EQ(Table.everyCallSync(P->function("when"), 3).Sync, nullptr);
  EXPECT_EQ(Table.everyCallSync(P->function("check"), 3).Sync, nullptr);
  // Within this unit, a site exactly where the level says one is reached.
  for (const FunctionDecl *FD : P->Core.userFunctions(P->ctx()))
    if (const FunctionSummary *S = Table.lookup(FD))
      for (unsigned D = 0; D <= MaxSummaryDepth; ++D)
        EXPECT_EQ(Table.everyCallSync(FD, D).Sync != nullptr,
                  FunctionSummary::reaches(S->SyncEveryCall, D))
            << FD->getQualifiedNameAsString() << " at depth " << D;
}

TEST(Summaries, ParametersWrittenInsertedReturned) {
  auto P = parse(R"cpp(
void fill(torch::Tensor k, torch::Tensor v) { k[0] = v; }
void grow(torch::Tensor k, torch::Tensor v) { k.add_(v); }
void keep(std::vector<torch::Tensor> &all, torch::Tensor v) { all.push_back(v); }
torch::Tensor same(torch::Tensor t, torch::Tensor u) { auto r = t; return r; }
void outer(torch::Tensor a, torch::Tensor b) { fill(a, b); }
)cpp");
  const FunctionSummary *Fill = P->summary("fill");
  ASSERT_TRUE(Fill);
  EXPECT_TRUE(Fill->Params[0].WrittenInPlace);
  EXPECT_FALSE(Fill->Params[1].WrittenInPlace);
  EXPECT_TRUE(P->summary("grow")->Params[0].WrittenInPlace);
  EXPECT_TRUE(P->summary("keep")->Params[1].Inserted);
  EXPECT_FALSE(P->summary("keep")->Params[0].Inserted);
  EXPECT_TRUE(P->summary("same")->Params[0].Returned);
  EXPECT_FALSE(P->summary("same")->Params[1].Returned);
  EXPECT_TRUE(P->summary("outer")->Params[0].WrittenInPlace);
  EXPECT_FALSE(P->summary("outer")->Params[1].WrittenInPlace);
}

// The parameter flows follow the lambdas the body runs (their bodies), not
// the lambdas it only stores; a lambda's return is not the function's.
TEST(Summaries, ParameterFlowsThroughLambdas) {
  auto P = parse(R"cpp(
#include <vector>
void alias_run(std::vector<torch::Tensor> &all, torch::Tensor v) {
  torch::Tensor a;
  auto f = [&] { a = v; };
  f();
  all.push_back(a);
}
void alias_stored(std::vector<torch::Tensor> &all, torch::Tensor v) {
  torch::Tensor a;
  auto f = [&] { a = v; };
  (void)f;
  all.push_back(a);
}
torch::Tensor lambda_returns(torch::Tensor t, torch::Tensor u) {
  auto f = [&] { return u; };
  f();
  return t;
}
)cpp");
  ASSERT_TRUE(P->summary("alias_run") && P->summary("alias_stored"));
  EXPECT_TRUE(P->summary("alias_run")->Params[1].Inserted);
  EXPECT_FALSE(P->summary("alias_stored")->Params[1].Inserted);
  const FunctionSummary *Returns = P->summary("lambda_returns");
  ASSERT_TRUE(Returns);
  EXPECT_TRUE(Returns->Params[0].Returned);
  EXPECT_FALSE(Returns->Params[1].Returned);
}

TEST(Summaries, EffectsFlowAroundCyclesOfCalls) {
  auto P = parse(R"cpp(
void ping(int n, torch::Tensor l);
void pong(int n, torch::Tensor l) { if (n) ping(n - 1, l); }
void ping(int n, torch::Tensor l) { if (n) pong(n - 1, l); else l.backward(); }
void caller(torch::Tensor l) { pong(3, l); }
torch::Tensor odd(Net &m, torch::Tensor x, int n);
torch::Tensor even(Net &m, torch::Tensor x, int n) { return n ? odd(m, x, n - 1) : m->forward(x); }
torch::Tensor odd(Net &m, torch::Tensor x, int n) {
  if (!n) return x;
  torch::NoGradGuard g;
  return even(m, x, n - 1);
}
torch::Tensor self(Net &m, torch::Tensor x, int n) { return n ? self(m, x, n - 1) : x; }
)cpp");
  ASSERT_TRUE(P->summary("ping") && P->summary("pong") && P->summary("caller"));
  // pong and ping form one cycle: ping's backward is one call from pong,
  // two from the caller.
  EXPECT_EQ(P->summary("ping")->Backward, 0u);
  EXPECT_EQ(P->summary("pong")->Backward, 1u);
  EXPECT_EQ(P->summary("caller")->Backward, 2u);
  // A guard on the way stays a guard around the cycle.
  ASSERT_TRUE(P->summary("even") && P->summary("odd"));
  EXPECT_EQ(P->summary("odd")->Forward, 1u);
  EXPECT_EQ(P->summary("odd")->UnguardedForward, NotReached);
  EXPECT_EQ(P->summary("even")->UnguardedForward, 0u);
  // A function calling itself adds nothing to itself.
  ASSERT_TRUE(P->summary("self"));
  EXPECT_EQ(P->summary("self")->Forward, NotReached);
}

TEST(Summaries, LambdasTheBodyRunsAreItsBody) {
  auto P = parse(R"cpp(
#include <algorithm>
#include <functional>
#include <thread>
#include <vector>
torch::Tensor called(Net &m, torch::Tensor x) { auto f = [&] { return m->forward(x); }; return f(); }
torch::Tensor invoked(Net &m, torch::Tensor x) { return [&] { return m->forward(x); }(); }
torch::Tensor wrapped(Net &m, torch::Tensor x) {
  std::function<torch::Tensor()> f = [&] { return m->forward(x); };
  return f();
}
void closure(Net &m, torch::optim::LBFGS &opt, torch::Tensor x) {
  opt.step([&] { auto l = m->forward(x).sum(); l.backward(); return l; });
}
void named_closure(Net &m, torch::optim::LBFGS &opt, torch::Tensor x) {
  auto c = [&] { auto l = m->forward(x).sum(); l.backward(); return l; };
  opt.step(c);
}
void each(Net &m, std::vector<torch::Tensor> &xs) {
  std::for_each(xs.begin(), xs.end(), [&](torch::Tensor &x) { x = m->forward(x); });
}
void nested(Net &m, torch::Tensor x) {
  auto outer = [&] { auto inner = [&] { return m->forward(x); }; return inner(); };
  outer();
}
std::function<torch::Tensor()> stored(Net &m, torch::Tensor x) { return [&m, x] { return m->forward(x); }; }
void threaded(Net &m, torch::Tensor x) { std::thread t([&] { m->forward(x); }); t.join(); }
void never(Net &m, torch::Tensor x) { auto f = [&] { return m->forward(x); }; (void)f; }
void nested_uncalled(Net &m, torch::Tensor x) {
  auto outer = [&] { auto inner = [&] { return m->forward(x); }; (void)inner; return 0; };
  outer();
}
void guarded(Net &m, torch::Tensor x) { auto f = [&] { torch::NoGradGuard g; return m->forward(x); }; f(); }
void hooked(torch::Tensor x) { x.register_hook([](torch::Tensor g) { g.backward(); return g; }); }
)cpp");
  for (llvm::StringRef Name : {"called", "invoked", "wrapped", "each", "nested"}) {
    ASSERT_TRUE(P->summary(Name)) << Name.str();
    EXPECT_EQ(P->summary(Name)->UnguardedForward, 0u) << Name.str();
  }
  for (llvm::StringRef Name : {"closure", "named_closure"}) {
    ASSERT_TRUE(P->summary(Name)) << Name.str();
    EXPECT_EQ(P->summary(Name)->Backward, 0u) << Name.str();
    EXPECT_EQ(P->summary(Name)->Forward, 0u) << Name.str();
  }
  // Not run before the function returns (or not at all).
  for (llvm::StringRef Name : {"stored", "threaded", "never", "nested_uncalled"}) {
    ASSERT_TRUE(P->summary(Name)) << Name.str();
    EXPECT_EQ(P->summary(Name)->Forward, NotReached) << Name.str();
  }
  ASSERT_TRUE(P->summary("hooked"));
  EXPECT_EQ(P->summary("hooked")->Backward, NotReached);
  // The lambda's guard covers the lambda's forward pass, not its caller.
  const FunctionSummary *Guarded = P->summary("guarded");
  ASSERT_TRUE(Guarded);
  EXPECT_EQ(Guarded->Forward, 0u);
  EXPECT_EQ(Guarded->UnguardedForward, NotReached);
  EXPECT_FALSE(Guarded->DisablesGrad);
}

TEST(Summaries, FirstUnguardedForwardPerDepth) {
  auto P = parse(R"cpp(
torch::Tensor leafA(Net &m, torch::Tensor x) { return m->forward(x); }
torch::Tensor viaA(Net &m, torch::Tensor x) { return leafA(m, x); }
torch::Tensor leafB(Net &m, torch::Tensor x) { return m->forward(x); }
torch::Tensor quiet(Net &m, torch::Tensor x) { torch::NoGradGuard g; return m->forward(x); }
torch::Tensor odd(Net &m, torch::Tensor x, int n);
torch::Tensor even(Net &m, torch::Tensor x, int n) { return n ? odd(m, x, n - 1) : leafA(m, x); }
torch::Tensor odd(Net &m, torch::Tensor x, int n) { return n ? even(m, x, n - 1) : x; }
torch::Tensor viaLambda(Net &m, torch::Tensor x) { auto f = [&] { return m->forward(x); }; return f(); }
torch::Tensor top(Net &m, torch::Tensor x) {
  { torch::NoGradGuard g; leafB(m, x); }
  auto q = quiet(m, x);
  auto a = viaA(m, x);
  auto b = leafB(m, x);
  return a + b + q;
}
)cpp");
  const SummaryTable &Table = P->Core.summaries(P->ctx());
  auto Forward = [&](llvm::StringRef Name) {
    return cast<CallExpr>(P->Core.facts(P->function(Name), P->ctx()).of(Fact::Forward)[0]->S);
  };
  const FunctionDecl *Top = P->function("top");
  ASSERT_TRUE(Top && P->function("leafA") && P->function("leafB"));
  EXPECT_EQ(Table.firstUnguardedForward(P->function("leafA"), 0), Forward("leafA"));
  EXPECT_EQ(Table.firstUnguardedForward(P->function("quiet"), 3), nullptr);
  // Nothing in top's own body; one level down, leafB's (the guarded call
  // does not count, viaA reaches none yet); two levels down, the first call
  // that reaches one is viaA's.
  EXPECT_EQ(Table.firstUnguardedForward(Top, 0), nullptr);
  EXPECT_EQ(Table.firstUnguardedForward(Top, 1), Forward("leafB"));
  EXPECT_EQ(Table.firstUnguardedForward(Top, 2), Forward("leafA"));
  EXPECT_EQ(Table.firstUnguardedForward(Top, MaxCallDepth), Forward("leafA"));
  // Around a cycle of calls: odd reaches leafA's through even.
  EXPECT_EQ(Table.firstUnguardedForward(P->function("odd"), 1), nullptr);
  EXPECT_EQ(Table.firstUnguardedForward(P->function("odd"), 2), Forward("leafA"));
  // A lambda the body calls is the body.
  EXPECT_EQ(Table.firstUnguardedForward(P->function("viaLambda"), 0), Forward("viaLambda"));
  // A site exactly where the level says a forward pass is reached.
  for (const FunctionDecl *FD : P->Core.userFunctions(P->ctx()))
    if (const FunctionSummary *S = Table.lookup(FD))
      for (unsigned D = 0; D <= MaxSummaryDepth; ++D)
        EXPECT_EQ(Table.firstUnguardedForward(FD, D) != nullptr,
                  FunctionSummary::reaches(S->UnguardedForward, D))
            << FD->getQualifiedNameAsString() << " at depth " << D;
}

TEST(Summaries, TemplatesAreKeyedByTheirPattern) {
  auto P = parse(R"cpp(
template <class M> struct Trainer {
  M model;
  void evaluate() { model->eval(); }
  void fit(torch::Tensor x) { model->train(); model->forward(x).sum().backward(); }
};
template <class Loader> void test_loop(Net &m, Loader &loader) { m->eval(); }
void run(Trainer<Net> &a, torch::Tensor x) { a.evaluate(); a.fit(x); }
void check(Net &m, std::vector<int> &l) { test_loop(m, l); }
)cpp");
  const FunctionSummary *Run = P->summary("run");
  ASSERT_TRUE(Run);
  EXPECT_EQ(Run->Eval, 1u);
  EXPECT_EQ(Run->Train, 1u);
  EXPECT_EQ(Run->Backward, 1u);
  const FunctionSummary *Evaluate = P->summary("Trainer<Net>::evaluate");
  ASSERT_TRUE(Evaluate);
  // The instantiation's summary is the pattern's, under the pattern's USR.
  const FunctionDecl *Inst = P->function("Trainer<Net>::evaluate");
  const FunctionDecl *Pattern = Inst->getTemplateInstantiationPattern();
  ASSERT_TRUE(Pattern);
  EXPECT_EQ(SummaryTable::key(Inst), Pattern->getCanonicalDecl());
  EXPECT_EQ(Evaluate->USR, usrOf(Pattern));
  EXPECT_EQ(P->Core.summaries(P->ctx()).lookup(Evaluate->USR), Evaluate);
  EXPECT_EQ(P->summary("check")->Eval, 1u);
}

// Callees are summarised before their callers whatever the order of the
// definitions, through the calls the summaries compose: a call in a lambda the
// body runs, a call through a template's instantiation, a cycle.
TEST(Summaries, CalleesBeforeCallers) {
  auto P = parse(R"cpp(
void inner(Net &m, torch::Tensor x);
template <class T> void helper(Net &m, T x);
void outer(Net &m, torch::Tensor x) {
  auto f = [&] { inner(m, x); };
  f();
}
void generic(Net &m, torch::Tensor x) { helper(m, x); }
void inner(Net &m, torch::Tensor x) { m->forward(x).sum().backward(); }
template <class T> void helper(Net &m, T x) { m->eval(); }
)cpp");
  ASSERT_TRUE(P->summary("outer") && P->summary("generic"));
  EXPECT_EQ(P->summary("outer")->Backward, 1u);
  EXPECT_EQ(P->summary("outer")->Forward, 1u);
  EXPECT_EQ(P->summary("generic")->Eval, 1u);
}

TEST(Summaries, JSONRoundTrip) {
  auto P = parse(R"cpp(
void fill(torch::Tensor k, torch::Tensor v) { k[0] = v; v.backward(); }
)cpp");
  const FunctionSummary *Fill = P->summary("fill");
  ASSERT_TRUE(Fill);
  EXPECT_FALSE(Fill->USR.empty());
  llvm::json::Value V = toJSON(*Fill);
  std::string Text;
  llvm::raw_string_ostream(Text) << V;
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  ASSERT_TRUE(bool(Parsed));
  FunctionSummary Back;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(*Parsed, Back, Root));
  EXPECT_EQ(Back, *Fill);
  // A malformed summary is refused, with the field named.
  llvm::json::Value Bad = llvm::json::Object{{"usr", "c:@F@x"}, {"name", "x"}, {"backward", "deep"}};
  FunctionSummary Ignored;
  llvm::json::Path::Root BadRoot;
  EXPECT_FALSE(fromJSON(Bad, Ignored, BadRoot));
}

TEST(Facts, IndexedAssignmentAndViews) {
  auto P = parse(R"cpp(
void f(Net &m, torch::Tensor x, std::vector<torch::Tensor> &keep) {
  torch::Tensor k = torch::zeros({2});
  k[0] = m->forward(x).sum();
  k.select(0, 1) = x;
  auto v = k.view({2});
  v.add_(x);
  keep.push_back(k);
  float s = k.item<float>();
  (void)s;
}
)cpp");
  const FunctionFacts &F = P->Core.facts(P->function("f"), P->ctx());
  auto Indexed = F.of(Fact::IndexedAssign);
  ASSERT_EQ(Indexed.size(), 2u);
  EXPECT_EQ(Indexed[0]->ObjectDecl->getName(), "k");
  EXPECT_EQ(Indexed[1]->ObjectDecl->getName(), "k");
  auto InPlace = F.of(Fact::InPlace);
  ASSERT_EQ(InPlace.size(), 1u);
  EXPECT_EQ(InPlace[0]->ObjectDecl->getName(), "v");
  EXPECT_EQ(F.of(Fact::ContainerInsert).size(), 1u);
  EXPECT_EQ(F.of(Fact::Sync).size(), 1u);
  EXPECT_EQ(F.of(Fact::Forward).size(), 1u);
  EXPECT_FALSE(F.of(Fact::View).empty());
}

// What the checks ask of the facts before walking a body themselves: the
// overloaded operators it spells, the lambdas, the optimizers it constructs,
// the names it calls or constructs.
TEST(Facts, WhatTheChecksAskBeforeTheirOwnWalk) {
  auto P = parse(R"cpp(
#include <map>
#include <memory>
void train(Net &m, torch::Tensor x, std::map<int, torch::Tensor> &byStep) {
  torch::Tensor total = torch::zeros({1});
  for (int i = 0; i < 3; ++i) {
    torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
    total += m->forward(x).sum();
    byStep[i] = total;
    opt.step();
  }
}
void later(Net &m) {
  auto opt = std::make_unique<torch::optim::Adam>(m->parameters());
  auto run = [&] { opt->step(); };
  run();
}
int plain(int n) {
  int s = 0;
  for (int j = 0; j < n; ++j)
    s += j;
  return s;
}
)cpp");
  const FunctionFacts &Train = P->Core.facts(P->function("train"), P->ctx());
  EXPECT_TRUE(Train.usesOperator(OO_PlusEqual));
  EXPECT_TRUE(Train.usesOperator(OO_Equal));
  EXPECT_TRUE(Train.usesOperator(OO_Subscript));
  EXPECT_FALSE(Train.usesOperator(OO_MinusEqual));
  EXPECT_TRUE(Train.constructsOptimizer());
  EXPECT_FALSE(Train.spellsLambda());
  EXPECT_TRUE(Train.callsNamed("step"));
  EXPECT_TRUE(Train.callsNamed("SGD")); // a constructed class counts by its name

  const FunctionFacts &Later = P->Core.facts(P->function("later"), P->ctx());
  EXPECT_TRUE(Later.constructsOptimizer()); // std::make_unique<Adam>
  EXPECT_TRUE(Later.spellsLambda());
  EXPECT_TRUE(Later.callsNamed("step")); // inside the lambda

  // Built-in operators are not overloaded operator calls.
  const FunctionFacts &Plain = P->Core.facts(P->function("plain"), P->ctx());
  EXPECT_FALSE(Plain.usesOperator(OO_PlusEqual));
  EXPECT_FALSE(Plain.constructsOptimizer());
  EXPECT_FALSE(Plain.spellsLambda());
  EXPECT_FALSE(Plain.callsNamed("step"));
}

// Every call and construction of a body, in the walk's order, for the checks
// that ask about calls alone: those in lambdas marked, the methods of local
// classes included; implicit code (a default argument's call) and the
// destructors not.
TEST(Facts, CallsAndConstructionsInTheWalksOrder) {
  auto P = parse(R"cpp(
struct Box { Box(int); ~Box(); };
int twice(int);
void use(int a = twice(7));
void f() {
  Box b(twice(1));
  auto later = [] { return twice(2); };
  Box *p = new Box(3);
  use();
  struct Local { void g() { twice(4); } };
  (void)later;
  (void)p;
}
)cpp");
  const FunctionFacts &F = P->Core.facts(P->function("f"), P->ctx());
  std::vector<std::string> Seen;
  for (const CallSite &S : F.calls()) {
    std::string Name;
    llvm::ArrayRef<const Expr *> Args;
    if (const auto *Call = dyn_cast<CallExpr>(S.E)) {
      Name = Call->getDirectCallee()->getNameAsString();
      Args = {Call->getArgs(), Call->getNumArgs()};
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S.E)) {
      Name = Construct->getConstructor()->getParent()->getNameAsString();
      Args = {Construct->getArgs(), Construct->getNumArgs()};
    }
    for (const Expr *Arg : Args)
      if (const auto *Lit = dyn_cast<IntegerLiteral>(Arg->IgnoreImpCasts()))
        Name += "(" + std::to_string(Lit->getValue().getZExtValue()) + ")";
    Seen.push_back(S.InLambda ? "lambda:" + Name : Name);
  }
  EXPECT_EQ(Seen, (std::vector<std::string>{"Box", "twice(1)", "lambda:twice(2)", "Box(3)", "use",
                                            "twice(4)"}));
}

// The body's variables as the one walk indexes them: each one's references
// (the lambdas' included, an explicit capture included, an implicit capture
// and a range-for's hidden variables not), its declaration, the lambdas spelled in the body, and the
// releases of memory (delete, free) in the walk's order.
TEST(Facts, ReferencesDeclarationsLambdasAndReleases) {
  auto P = parse(R"cpp(
#include <cstdlib>
#include <vector>
int g;
void f(int n) {
  int a = n + g;
  int *p = new int(a);
  auto add = [a, &n](int k) { return a + n + k; };
  auto all = [&] { return a + n; };
  void *q = std::malloc(8);
  std::free(q);
  delete p;
  std::vector<int> v{a};
  for (int x : v)
    n += x + add(a);
  (void)all;
}
)cpp");
  const FunctionFacts &F = P->Core.facts(P->function("f"), P->ctx());
  auto Var = [&](llvm::StringRef Name) -> const VarDecl * {
    const VarDecl *Found = nullptr;
    for (const Stmt *S : cast<CompoundStmt>(F.body())->body())
      if (const auto *D = dyn_cast<DeclStmt>(S))
        for (const Decl *Each : D->decls())
          if (const auto *VD = dyn_cast<VarDecl>(Each); VD && VD->getName() == Name)
            Found = VD;
    return Found;
  };
  const FunctionDecl *FD = P->function("f");
  const VarDecl *N = FD->getParamDecl(0);
  // n: `n + g`, the capture `&n`, add's body, all's body, `n += ...`.
  EXPECT_EQ(F.references(N).size(), 5u);
  // a: `new int(a)`, the capture, add's body, all's body, `v{a}`, `add(a)`.
  ASSERT_NE(Var("a"), nullptr);
  EXPECT_EQ(F.references(Var("a")).size(), 6u);
  EXPECT_NE(F.declaration(Var("a")), nullptr);
  EXPECT_EQ(F.declaration(N), nullptr);
  // The global g is referenced, declared elsewhere.
  const VarDecl *G = nullptr;
  for (const Decl *D : P->ctx().getTranslationUnitDecl()->decls())
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getName() == "g")
      G = VD;
  ASSERT_NE(G, nullptr);
  EXPECT_EQ(F.references(G).size(), 1u);
  EXPECT_EQ(F.declaration(G), nullptr);
  // `all` captures a and n implicitly: only its body's references count.
  EXPECT_EQ(F.lambdas().size(), 2u);
  // std::free(q), then delete p: in the walk's order, each with its pointer.
  auto Releases = F.of(Fact::Release);
  ASSERT_EQ(Releases.size(), 2u);
  EXPECT_TRUE(isa<CallExpr>(Releases[0]->S));
  EXPECT_EQ(Releases[0]->ObjectDecl, Var("q"));
  EXPECT_TRUE(isa<CXXDeleteExpr>(Releases[1]->S));
  EXPECT_EQ(Releases[1]->ObjectDecl, Var("p"));
}

// Every variable a body declares (lambda parameters and catch parameters
// included) and the data members it names, each with its member expressions
// in the walk's order; methods are not members here.
TEST(Facts, VariablesAndMemberReferences) {
  auto P = parse(R"cpp(
struct Box {
  int count = 0;
  static int made;
  int get() const { return count; }
};
int Box::made = 0;
void f(Box &b, Box *p) {
  int a = b.count;
  auto bump = [&](int by) { p->count += by; };
  try {
    bump(a + b.get() + Box::made + b.made);
  } catch (int code) {
    b.count = code;
  }
}
)cpp");
  const FunctionFacts &F = P->Core.facts(P->function("f"), P->ctx());
  std::vector<std::string> Names;
  for (const FunctionFacts::Node &N : F.nodes())
    if (N.Var)
      Names.push_back(N.Var->getName().str());
  EXPECT_EQ(Names, (std::vector<std::string>{"a", "bump", "by", "code"}));
  // `a` and `bump` are declared by statements; `by` and `code` are not.
  EXPECT_EQ(F.declarations().size(), 2u);
  std::vector<std::string> Members;
  std::vector<size_t> Counts;
  for (const auto &[Member, Refs] : F.memberReferences()) {
    Members.push_back(Member->getName().str());
    Counts.push_back(Refs.size());
  }
  // count: `b.count`, `p->count`, `b.count = code`; made: `b.made` (Box::made
  // is a DeclRefExpr). get() is a method.
  EXPECT_EQ(Members, (std::vector<std::string>{"count", "made"}));
  EXPECT_EQ(Counts, (std::vector<size_t>{3u, 1u}));
  const auto &Count = F.memberReferences().front().second;
  ASSERT_EQ(Count.size(), 3u);
  EXPECT_TRUE(P->ctx().getSourceManager().isBeforeInTranslationUnit(Count[0]->getExprLoc(),
                                                                     Count[1]->getExprLoc()));
  // The walk's nodes: the body first, each variable's declaration where the
  // walk meets it, a lambda's own node in the body, its body's nodes in it.
  ASSERT_FALSE(F.nodes().empty());
  EXPECT_EQ(F.nodes().front().S, F.body());
  const LambdaExpr *Bump = nullptr;
  for (const FunctionFacts::Node &N : F.nodes()) {
    // The lambda's parameter belongs to the lambda, the rest to the body.
    if (N.Var)
      EXPECT_EQ(N.Lambda, N.Var->getName() == "by" ? Bump : nullptr) << N.Var->getName().str();
    if (const auto *L = dyn_cast_or_null<LambdaExpr>(N.S)) {
      Bump = L;
      EXPECT_EQ(N.Lambda, nullptr);
    }
    if (N.S && isa<CompoundAssignOperator>(N.S))
      EXPECT_EQ(N.Lambda, Bump);
    if (N.S && isa<CXXTryStmt>(N.S))
      EXPECT_EQ(N.Lambda, nullptr);
  }
  ASSERT_NE(Bump, nullptr);
}

/// The training-loop events of \p A, one line each: kind, lines of the call
/// and of the helper's inner call, the helper it came through, the object.
static std::vector<std::string> eventLines(const TrainingLoopAnalysis &A, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  auto Line = [&](const Stmt *S) {
    return S ? std::to_string(SM.getPresumedLineNumber(S->getBeginLoc())) : std::string("-");
  };
  std::vector<std::string> Out;
  for (const TrainingEvent &E : A.events())
    Out.push_back(std::to_string(E.K) + " " + Line(E.Call) + " " + Line(E.Inner) + " " +
                  (E.Via ? E.Via->getNameAsString() : "-") + " " +
                  (E.ObjectDecl ? E.ObjectDecl->getNameAsString() : "-"));
  for (const TrainingLoop &L : A.loops())
    Out.push_back("loop " + Line(L.Loop) + " events " + std::to_string(L.Events.size()));
  return Out;
}

// What a helper contributes to its callers' training loops is walked once per
// depth and shared (HelperEventTable): whatever order the functions are asked
// in, every analysis and every summary's LoopEvents is the one a walk of its
// own (a core of its own, an empty table) gives, also through recursions
// whose answer depends on where the caller's path cuts the cycle.
TEST(TrainingLoop, HelperEventsAreSharedAndCyclesWalkedAgain) {
  auto P = parse(R"cpp(
void zeroAll(torch::optim::SGD &o) { o.zero_grad(); }
void backStep(torch::Tensor l, torch::optim::SGD &o) { l.backward(); o.step(); }
void both(torch::Tensor l, torch::optim::SGD &o) { zeroAll(o); backStep(l, o); }
void deeper(torch::Tensor l, torch::optim::SGD &o) { both(l, o); }
struct Trainer {
  torch::optim::SGD &opt;
  void a(torch::Tensor l) { opt.zero_grad(); b(l); }
  void b(torch::Tensor l) { c(l); l.backward(); }
  void c(torch::Tensor l) { a(l); opt.step(); }
  void self(torch::Tensor l) { opt.zero_grad(); self(l); l.backward(); opt.step(); }
  void d(torch::Tensor l) { e(l); }
  void e(torch::Tensor l) { opt.zero_grad(); d(l); l.backward(); opt.step(); }
  void fitA(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) a(m->forward(x).sum()); }
  void fitB(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) b(m->forward(x).sum()); }
  void fitC(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) c(m->forward(x).sum()); }
  void fitSelf(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) self(m->forward(x).sum()); }
  void fitD(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) d(m->forward(x).sum()); }
  void fitE(Net &m, torch::Tensor x) { for (int i = 0; i < 3; ++i) e(m->forward(x).sum()); }
};
void fit(Net &m, torch::optim::SGD &o, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) { both(m->forward(x).sum(), o); deeper(m->forward(x).sum(), o); }
}
void fit2(Net &m, torch::optim::SGD &o, torch::Tensor x) {
  for (int i = 0; i < 3; ++i) { zeroAll(o); backStep(m->forward(x).sum(), o); }
}
)cpp");
  ASTContext &Ctx = P->ctx();
  std::vector<const FunctionDecl *> All(P->Core.userFunctions(Ctx).begin(),
                                        P->Core.userFunctions(Ctx).end());
  ASSERT_EQ(All.size(), 18u);
  auto Alone = [&](const FunctionDecl *FD, unsigned Depth) {
    AnalysisCore Own;
    return eventLines(Own.trainingLoops(FD, Ctx, Depth), Ctx);
  };
  // The shared table, filled callers first, then callees first.
  size_t Loops = 0;
  for (unsigned Depth : {3u, 1u, 2u, 4u, 6u})
    for (const FunctionDecl *FD : All) {
      auto Lines = eventLines(P->Core.trainingLoops(FD, Ctx, Depth), Ctx);
      Loops += llvm::count_if(Lines, [](const std::string &L) { return L.rfind("loop", 0) == 0; });
      EXPECT_EQ(Lines, Alone(FD, Depth)) << FD->getQualifiedNameAsString() << " depth " << Depth;
    }
  AnalysisCore Reverse;
  for (unsigned Depth : {5u, 2u, 3u})
    for (auto It = All.rbegin(); It != All.rend(); ++It)
      EXPECT_EQ(eventLines(Reverse.trainingLoops(*It, Ctx, Depth), Ctx), Alone(*It, Depth))
          << (*It)->getQualifiedNameAsString() << " depth " << Depth;
  // Some loops are found through helpers, so the comparison says something.
  EXPECT_GT(Loops, 10u);
  // The summaries' LoopEvents, built over the shared table, are those of a
  // walk of their own.
  bool SomeEvents = false;
  for (const FunctionDecl *FD : All) {
    const FunctionSummary *S = P->Core.summaries(Ctx).lookup(FD);
    ASSERT_NE(S, nullptr) << FD->getQualifiedNameAsString();
    HelperEventTable Empty;
    AnalysisCore Own;
    EXPECT_EQ(S->LoopEvents, helperLoopEvents(FD, Ctx, Own.factsLookup(Ctx), Empty))
        << FD->getQualifiedNameAsString();
    SomeEvents |= !S->LoopEvents.empty();
  }
  EXPECT_TRUE(SomeEvents);
  // Recursive helpers differ with the caller's path: fitA's loop at depth 3
  // sees a's zero_grad, then b's and c's events, with c's call of a cut.
  const TrainingLoopAnalysis &FitA = P->Core.trainingLoops(P->function("Trainer::fitA"), Ctx, 3);
  ASSERT_EQ(FitA.loops().size(), 1u);
  EXPECT_EQ(FitA.loops().front().Events.size(), 3u);
}

// Whether a function returns autograd history is one answer whatever order
// the functions are asked in: through a recursion, a function's summary is
// the least fixpoint of the cycle, not what the function read of a caller
// still in progress (b_fn asked first used to leave a_fn without history).
TEST(History, RecursiveSummariesDoNotDependOnTheOrderAsked) {
  auto P = parse(R"cpp(
torch::Tensor b_fn(Net &m, torch::Tensor x, int n);
torch::Tensor a_fn(Net &m, torch::Tensor x, int n) { return n ? b_fn(m, x, n - 1) : torch::zeros({2}); }
torch::Tensor b_fn(Net &m, torch::Tensor x, int n) { return n ? a_fn(m, x, n - 1) : m->forward(x); }
torch::Tensor r3(torch::Tensor x, int n);
torch::Tensor q3(torch::Tensor x, int n) { return n ? r3(x, n - 1) : x * 2; }
torch::Tensor p3(torch::Tensor x, int n) { return n ? q3(x, n - 1) : torch::zeros({2}); }
torch::Tensor r3(torch::Tensor x, int n) { return n ? p3(x, n - 1) : q3(x, n); }
torch::Tensor plain(torch::Tensor x) { return x.detach(); }
torch::Tensor alone(int n) { return n ? alone(n - 1) : torch::zeros({2}); }
)cpp");
  ASTContext &Ctx = P->ctx();
  std::vector<std::string> Names = {"a_fn", "alone", "b_fn", "p3", "plain", "q3", "r3"};
  auto Answers = [&](const std::vector<std::string> &Order) {
    AnalysisCore Own;
    HistoryFunctions &H = Own.history(Ctx);
    std::map<std::string, std::string> Out;
    for (const std::string &N : Order) {
      HistoryFunctions::Summary S = H.summary(P->function(N), Ctx);
      Out[N] = std::string(S.Always ? "always" : "-") + (S.FromArgs ? " from-args" : " -");
    }
    return Out;
  };
  std::map<std::string, std::string> First = Answers(Names);
  EXPECT_EQ(First["a_fn"], "always from-args");
  EXPECT_EQ(First["b_fn"], "always from-args");
  EXPECT_EQ(First["p3"], "- from-args");
  EXPECT_EQ(First["q3"], "- from-args");
  EXPECT_EQ(First["r3"], "- from-args");
  EXPECT_EQ(First["plain"], "- -");
  EXPECT_EQ(First["alone"], "- -");
  std::vector<std::string> Order = Names;
  unsigned Orders = 0;
  while (std::next_permutation(Order.begin(), Order.end()))
    if (++Orders % 5 == 0 && (Order.front() == "b_fn" || Order.front()[1] == '3'))
      EXPECT_EQ(Answers(Order), First) << llvm::join(Order, ", ");
}

// The names a body declares, whatever they name (a fix-it's new variable
// must take none of them).
TEST(Facts, NamedDeclarations) {
  auto P = parse(R"cpp(
int f(int n) {
  struct no_grad { int guard; };
  using stream_guard = int;
  auto add = [](int autocast) { return autocast + 1; };
  if (n < 0)
    goto done;
  n = add(n);
done:
  return n;
}
)cpp");
  std::vector<std::string> Names;
  for (const NamedDecl *ND : P->Core.facts(P->function("f"), P->ctx()).namedDeclarations())
    Names.push_back(ND->getName().str());
  // The parameter `n` is the function's, not the body's; a label lives in
  // a namespace of its own and takes no variable's name.
  EXPECT_EQ(Names, (std::vector<std::string>{"no_grad", "guard", "stream_guard", "add",
                                             "autocast"}));
}

// A constructor's written member initialisers, walked apart from its body
// (the escape analysis reads both for a constructor that builds a local
// object); implicit initialisers and other functions have none.
TEST(Facts, ConstructorInitializerNodes) {
  auto P = parse(R"cpp(
struct Pair {
  int first;
  int second = 2;
  Pair(int a) : first(a + 1) { int b = a; }
};
int twice(int x) { return x + x; }
)cpp");
  const FunctionFacts &Ctor = P->Core.facts(P->function("Pair::Pair"), P->ctx());
  std::vector<std::string> Refs;
  for (const FunctionFacts::Node &N : Ctor.initializerNodes())
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(N.S))
      Refs.push_back(DRE->getDecl()->getName().str());
  // `first(a + 1)` only: `second`'s default initialiser is not written here.
  EXPECT_EQ(Refs, (std::vector<std::string>{"a"}));
  ASSERT_FALSE(Ctor.initializerNodes().empty());
  EXPECT_TRUE(isa<BinaryOperator>(Ctor.initializerNodes().front().S));
  // The body's nodes do not include the initialiser: its variable is `b`.
  for (const FunctionFacts::Node &N : Ctor.nodes())
    EXPECT_FALSE(N.S && N.S == Ctor.initializerNodes().front().S);
  EXPECT_TRUE(P->Core.facts(P->function("twice"), P->ctx()).initializerNodes().empty());
}

// A statement's subtree in the walk's nodes: its own node, then the nodes
// below it, up to its End (an expression query reads that range instead of
// walking the expression). Every node in the range lies inside the
// statement; the statement after it does not; a braced initialiser with two
// forms is met once, in the form written.
TEST(Facts, SubtreeRangesOfNodes) {
  auto P = parse(R"cpp(
struct Pair { int a; int b; };
int g(int);
int h() { return 7; }
int f(int x, int y) {
  int s = (x + 1) * g(y);
  Pair p = {.a = s, .b = [&] { int z = y; return z + s; }()};
  return p.a + s;
}
)cpp");
  const FunctionFacts &F = P->Core.facts(P->function("f"), P->ctx());
  llvm::ArrayRef<FunctionFacts::Node> Nodes = F.nodes();
  const ParentMap &PM = F.parents();
  unsigned Ranges = 0;
  for (unsigned I = 0; I < Nodes.size(); ++I) {
    if (!Nodes[I].S)
      continue;
    ASSERT_GT(Nodes[I].End, I) << "statement node " << I << " has no subtree range";
    ASSERT_LE(Nodes[I].End, Nodes.size());
    if (!isa<InitListExpr>(Nodes[I].S))
      EXPECT_EQ(F.nodeIndex(Nodes[I].S), std::optional<unsigned>(I));
    auto Below = [&](const Stmt *S) {
      for (const Stmt *A = S; A; A = PM.getParent(A)) {
        const auto *Init = dyn_cast<InitListExpr>(A); // the parent map's form
        if (A == Nodes[I].S || (Init && Init->getSyntacticForm() == Nodes[I].S))
          return true;
      }
      return false;
    };
    // The parent map knows the semantic form of a braced initialiser: a
    // designator of the written form has no parent there.
    auto Known = [&](const Stmt *S) { return S && (PM.hasParent(S) || S == F.body()); };
    const bool Checkable = Known(Nodes[I].S) || isa<InitListExpr>(Nodes[I].S);
    for (unsigned K = I + 1; Checkable && K < Nodes[I].End; ++K)
      EXPECT_TRUE(!Known(Nodes[K].S) || Below(Nodes[K].S))
          << "node " << K << " is not below " << I;
    if (Checkable && Nodes[I].End < Nodes.size() && Known(Nodes[Nodes[I].End].S))
      EXPECT_FALSE(Below(Nodes[Nodes[I].End].S)) << "the node after " << I << "'s range";
    ++Ranges;
  }
  EXPECT_GT(Ranges, 20u);
  // `(x + 1) * g(y)`: the product's range holds both operands, the call and
  // its argument; the sum's range ends before the call.
  const auto *Mul = [&]() -> const BinaryOperator * {
    for (const FunctionFacts::Node &N : Nodes)
      if (const auto *BO = dyn_cast_or_null<BinaryOperator>(N.S); BO && BO->getOpcode() == BO_Mul)
        return BO;
    return nullptr;
  }();
  ASSERT_TRUE(Mul);
  std::optional<unsigned> M = F.nodeIndex(Mul);
  ASSERT_TRUE(M);
  std::vector<std::string> Refs;
  for (unsigned K = *M; K < Nodes[*M].End; ++K)
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Nodes[K].S))
      Refs.push_back(DRE->getDecl()->getName().str());
  EXPECT_EQ(Refs, (std::vector<std::string>{"x", "g", "y"}));
  // The lambda's body is below the initialiser that calls it.
  const InitListExpr *Init = nullptr;
  for (const FunctionFacts::Node &N : Nodes)
    if (N.Var && N.Var->getName() == "p")
      Init = dyn_cast_or_null<InitListExpr>(N.Var->getInit()->IgnoreImplicit());
  ASSERT_TRUE(Init);
  // The variable's initialiser is the semantic form; the walk meets the one
  // written.
  std::optional<unsigned> L = F.nodeIndex(Init);
  ASSERT_TRUE(L);
  EXPECT_EQ(L, F.nodeIndex(Init->getSyntacticForm() ? Init->getSyntacticForm() : Init));
  Refs.clear();
  for (unsigned K = *L; K < Nodes[*L].End; ++K)
    if (const auto *DRE = dyn_cast_or_null<DeclRefExpr>(Nodes[K].S); DRE && isa<VarDecl>(DRE->getDecl()))
      Refs.push_back(DRE->getDecl()->getName().str());
  EXPECT_EQ(Refs, (std::vector<std::string>{"s", "y", "z", "s"}));
  // Another function's statement is not a node of this body.
  const FunctionDecl *H = P->function("h");
  ASSERT_TRUE(H);
  EXPECT_FALSE(F.nodeIndex(H->getBody()));
}

// Where a body's variables get their values (DefUse.h), as the core keeps
// them for the checks: sources, whole assignments, other modifications,
// variables handed to a callee by non-const reference, range-for variables.
TEST(Facts, DefinitionsAndModificationsOfVariables) {
  auto P = parse(R"cpp(
#include <tuple>
#include <vector>
void fill(torch::Tensor &out);
void keep(const torch::Tensor &in);
void f(Net &m, torch::Tensor x, std::vector<torch::Tensor> &parts) {
  torch::Tensor loss = torch::zeros({1});
  for (int i = 0; i < 3; ++i) {
    loss = m->forward(x).sum();
    loss.add_(x);
  }
  std::vector<torch::Tensor> list;
  list.push_back(loss);
  torch::Tensor a, b, filled, read;
  std::tie(a, b) = std::make_tuple(x, x);
  fill(filled);
  keep(read);
  for (auto &part : parts)
    (void)part;
  int n = 0;
  ++n;
}
)cpp");
  const FunctionDecl *FD = P->function("f");
  ASSERT_NE(FD, nullptr);
  const DefUse &D = P->Core.facts(FD, P->ctx()).defUse();
  auto Var = [&](llvm::StringRef Name) -> const VarDecl * {
    const VarDecl *Found = nullptr;
    struct Finder : RecursiveASTVisitor<Finder> {
      llvm::StringRef Name;
      const VarDecl *&Out;
      Finder(llvm::StringRef N, const VarDecl *&O) : Name(N), Out(O) {}
      bool VisitVarDecl(VarDecl *V) {
        if (V->getName() == Name)
          Out = V;
        return true;
      }
    } Walk(Name, Found);
    Walk.TraverseDecl(const_cast<FunctionDecl *>(FD));
    return Found;
  };
  const VarDecl *Loss = Var("loss");
  ASSERT_NE(Loss, nullptr);
  // Its initialiser, the assignment's right side, add_'s argument.
  EXPECT_EQ(D.sources(Loss).size(), 3u);
  EXPECT_TRUE(D.isModified(Loss));
  ASSERT_EQ(D.assignments(Loss).size(), 1u);
  EXPECT_TRUE(D.isOtherwiseModified(Loss)); // add_
  EXPECT_EQ(D.modificationSites(Loss).size(), 2u);
  EXPECT_FALSE(D.isOpaquelyModified(Loss));

  const VarDecl *List = Var("list");
  EXPECT_TRUE(D.isModified(List)); // push_back into a container of tensors
  EXPECT_EQ(D.sources(List).size(), 2u); // its default construction, push_back's argument

  EXPECT_TRUE(D.isOtherwiseModified(Var("a"))); // std::tie
  EXPECT_TRUE(D.isOtherwiseModified(Var("b")));
  EXPECT_TRUE(D.assignments(Var("a")).empty());

  EXPECT_TRUE(D.isOpaquelyModified(Var("filled"))); // by non-const reference
  EXPECT_FALSE(D.isModified(Var("read")));          // by const reference

  const VarDecl *Part = Var("part");
  EXPECT_TRUE(D.isRangeVariable(Part));
  EXPECT_NE(D.rangeOf(Part), nullptr);
  EXPECT_FALSE(D.isRangeVariable(Loss));

  EXPECT_TRUE(D.isModified(Var("n"))); // ++n
  EXPECT_TRUE(D.sources(Var("n")).size() == 1u); // its initialiser only
}

TEST(Helpers, ArgumentsAndParameters) {
  auto P = parse(R"cpp(
struct Acc { Acc &operator()(int a, int b); };
struct Sum { static int operator()(int a, int b); }; // C++23, accepted as an extension
int g(int a, int b);
void f(Acc &acc, Sum &sum, int x, int y) { g(x, y); acc(x, y); sum(x, y); }
)cpp");
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const CallExpr *> Calls;
    bool VisitCallExpr(CallExpr *C) { Calls.push_back(C); return true; }
  } Fd;
  Fd.TraverseStmt(P->function("f")->getBody());
  ASSERT_EQ(Fd.Calls.size(), 3u);
  for (const CallExpr *C : Fd.Calls) {
    const Expr *Second = argumentFor(C, 1);
    ASSERT_TRUE(Second);
    EXPECT_EQ(namedVariable(Second)->getName(), "y");
    EXPECT_EQ(parameterIndexFor(C, Second), 1);
  }
  // The object of a member operator is no parameter, of a static one either
  // (the call still holds it as argument 0).
  EXPECT_EQ(parameterIndexFor(Fd.Calls[1], Fd.Calls[1]->getArg(0)), -1);
  EXPECT_EQ(parameterIndexFor(Fd.Calls[2], Fd.Calls[2]->getArg(0)), -1);
}

} // namespace

// The evaluation-name options: a list of whole words is answered without the
// regular expression, with the same answers; any other pattern by it.
TEST(Helpers, WordPatterns) {
  WordPattern Words("^(eval|evaluate|test)$");
  EXPECT_TRUE(Words.matchesWordOf("evaluate_epoch"));
  EXPECT_TRUE(Words.matchesWordOf("runTest"));
  EXPECT_TRUE(Words.matchesWordOf("EVAL"));
  EXPECT_FALSE(Words.matchesWordOf("evaluation_set")); // a word, not a prefix
  EXPECT_FALSE(Words.matchesWordOf("contest"));
  EXPECT_FALSE(Words.matchesWordOf("train_1351"));
  WordPattern Regex("^(val|test)[0-9]*$");
  EXPECT_TRUE(Regex.matchesWordOf("run_test2"));
  EXPECT_FALSE(Regex.matchesWordOf("train"));
  std::string Error;
  EXPECT_FALSE(WordPattern("^(eval").isValid(Error));
}
