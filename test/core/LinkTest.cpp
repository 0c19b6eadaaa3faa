//===--- LinkTest.cpp - libtorch-tidy -------------------------------------===//
//
// Summaries across translation units: the serialised document of a unit
// (SummaryModel.h), the link of several (a merge by USR that does not depend
// on the order), the callers' side (a result that reaches backward in
// another file) and the linked summary a unit reads for a function it only
// declares.

#include "utils/AnalysisCore.h"
#include "utils/Summaries.h"
#include "utils/SummaryModel.h"

#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <algorithm>

using namespace clang;
using namespace clang::tidy::torch_check;

namespace {

const char *Prelude = R"cpp(
#include <torch/torch.h>
struct NetImpl : torch::nn::Module { torch::Tensor forward(torch::Tensor x); };
TORCH_MODULE(Net);
)cpp";

struct Unit {
  std::unique_ptr<ASTUnit> AST;
  AnalysisCore Core;
  ASTContext &ctx() { return AST->getASTContext(); }
  SummaryDocument document() { return Core.summaries(ctx()).document(); }
  const FunctionDecl *declared(llvm::StringRef Name) {
    for (const Decl *D : ctx().getTranslationUnitDecl()->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D))
        if (FD->getQualifiedNameAsString() == Name)
          return FD;
    return nullptr;
  }
};

std::unique_ptr<Unit> parse(llvm::StringRef Code, llvm::StringRef Name = "input.cpp") {
  auto U = std::make_unique<Unit>();
  U->AST = tooling::buildASTFromCodeWithArgs(
      std::string(Prelude) + Code.str(),
      {"-std=c++17", "-isystem", LIBTORCH_TIDY_MOCK_HEADERS, "-fsyntax-only"}, Name);
  EXPECT_FALSE(U->AST->getDiagnostics().hasErrorOccurred());
  return U;
}

/// The document \p U's core writes at the end of its translation unit (the
/// option TorchSummariesOutput): its summaries, and the questions \p Ask put
/// to the core before.
SummaryDocument writtenDocument(Unit &U, llvm::function_ref<void(Unit &)> Ask = nullptr) {
  llvm::SmallString<128> Out;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-unit", "json", Out));
  EXPECT_EQ(U.Core.configure("", Out), "");
  if (Ask)
    Ask(U);
  U.Core.summaries(U.ctx());
  EXPECT_EQ(U.Core.endTranslationUnit(), "");
  auto Doc = readSummaryFile(Out);
  llvm::sys::fs::remove(Out);
  if (!Doc) {
    ADD_FAILURE() << llvm::toString(Doc.takeError());
    return SummaryDocument();
  }
  return std::move(*Doc);
}

const char *Shared = R"cpp(
torch::Tensor evaluate_actions(Net &m, torch::Tensor x);
inline torch::Tensor score(Net &m, torch::Tensor x) { return m->forward(x); }
)cpp";

FunctionSummary summary(llvm::StringRef USR, unsigned Forward, bool History, unsigned NParams) {
  FunctionSummary S;
  S.USR = USR.str();
  S.Name = USR.str();
  S.Forward = Forward;
  S.ReturnsHistory = History;
  S.Params.resize(NParams);
  return S;
}

TEST(Link, MergeIsOrderFreeAndConservative) {
  SummaryDocument A, B, C;
  A.Functions["c:@F@f"] = summary("c:@F@f", 2, false, 1);
  B.Functions["c:@F@f"] = summary("c:@F@f", 0, true, 2);
  B.Functions["c:@F@f"].Params[1].ReachesBackward = true;
  B.Functions["c:@F@f"].Name = "a-name";
  C.Functions["c:@F@g"] = summary("c:@F@g", NotReached, false, 0);
  C.ResultReachesBackward.insert("c:@F@f");

  SummaryDocument AB = A, BA = B;
  AB.merge(B);
  AB.merge(C);
  BA.merge(C);
  BA.merge(A);
  EXPECT_EQ(AB.toText(), BA.toText());
  const FunctionSummary *F = AB.lookup("c:@F@f");
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Forward, 0u);             // the fewest levels
  EXPECT_TRUE(F->ReturnsHistory);        // the union of the flags
  ASSERT_EQ(F->Params.size(), 2u);
  EXPECT_TRUE(F->Params[1].ReachesBackward);
  EXPECT_EQ(F->Name, "a-name");          // the smaller name, whatever the order
  EXPECT_TRUE(AB.resultReachesBackward("c:@F@f"));
  EXPECT_FALSE(AB.resultReachesBackward("c:@F@g"));
  EXPECT_TRUE(AB.lookup("c:@F@g"));
}

TEST(Link, TextRoundTripAndErrors) {
  SummaryDocument D;
  D.Functions["c:@F@f"] = summary("c:@F@f", 1, true, 1);
  D.Functions["c:@F@f"].UnguardedForward = 1;
  D.ResultReachesBackward.insert("c:@F@h");
  auto Back = parseSummaryDocument(D.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->toText(), D.toText());
  EXPECT_EQ(*Back->lookup("c:@F@f"), *D.lookup("c:@F@f"));

  auto Message = [](llvm::StringRef Text) {
    auto Doc = parseSummaryDocument(Text);
    EXPECT_FALSE(bool(Doc));
    return Doc ? std::string() : llvm::toString(Doc.takeError());
  };
  EXPECT_NE(Message("{").find("not JSON"), std::string::npos);
  EXPECT_NE(Message("[]").find("expected an object"), std::string::npos);
  EXPECT_NE(Message(R"({"version": 7, "functions": [], "resultReachesBackward": []})")
                .find("version"),
            std::string::npos);
  EXPECT_NE(Message(R"({"version": 1, "functions": [{"usr": "x"}], "resultReachesBackward": []})")
                .find("a function summary"),
            std::string::npos);
  auto Missing = readSummaryFile("/nonexistent/summaries.json");
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(llvm::toString(Missing.takeError()).find("cannot read '/nonexistent/summaries.json'"),
            std::string::npos);
}

TEST(Link, TwoUnitsThroughTheCore) {
  // The defining unit: a forward pass with autograd on, an inline helper.
  auto Def = parse(std::string(Shared) + R"cpp(
torch::Tensor evaluate_actions(Net &m, torch::Tensor x) { return m->forward(x); }
)cpp", "policy.cpp");
  // The calling unit: backward through the result of evaluate_actions, and
  // the same inline helper (defined in both: merged).
  auto Use = parse(std::string(Shared) + R"cpp(
void train_step(Net &m, torch::Tensor x) {
  auto out = evaluate_actions(m, x);
  auto loss = out.sum();
  loss.backward();
}
void peek(Net &m, torch::Tensor x) { auto y = evaluate_actions(m, x); }
)cpp", "ppo.cpp");
  SummaryDocument DefDoc = Def->document(), UseDoc = Use->document();
  std::string USR = usrOf(Def->declared("evaluate_actions"));
  ASSERT_FALSE(USR.empty());
  EXPECT_EQ(USR, usrOf(Use->declared("evaluate_actions"))); // stable across units
  ASSERT_TRUE(DefDoc.lookup(USR));
  EXPECT_EQ(DefDoc.lookup(USR)->UnguardedForward, 0u);
  EXPECT_FALSE(DefDoc.resultReachesBackward(USR));
  EXPECT_FALSE(UseDoc.lookup(USR)); // declared only
  EXPECT_TRUE(UseDoc.resultReachesBackward(USR));

  EXPECT_TRUE(UseDoc.Uses.count(USR));  // what the calling unit reads
  EXPECT_FALSE(DefDoc.Uses.count(USR));

  SummaryDocument Linked;
  Linked.merge(DefDoc);
  Linked.merge(UseDoc);
  EXPECT_TRUE(Linked.Uses.empty()); // a unit's, not linked
  std::string Score = usrOf(Def->declared("score"));
  ASSERT_TRUE(Linked.lookup(Score));
  EXPECT_EQ(Linked.Functions.count(Score), 1u);

  // What each unit depends on: the caller, evaluate_actions' summary; the
  // definer, the callers' side of evaluate_actions. A summary neither reads
  // changes neither.
  std::string UseDeps = Linked.dependencies(UseDoc), DefDeps = Linked.dependencies(DefDoc);
  EXPECT_NE(UseDeps.find("uses " + USR), std::string::npos);
  EXPECT_NE(DefDeps.find("result reaches backward: " + USR), std::string::npos);
  SummaryDocument Changed = Linked;
  Changed.Functions["c:@F@unrelated"] = summary("c:@F@unrelated", 0, true, 0);
  EXPECT_EQ(Changed.dependencies(UseDoc), UseDeps);
  Changed.Functions[USR].UnguardedForward = NotReached;
  EXPECT_NE(Changed.dependencies(UseDoc), UseDeps);
  EXPECT_EQ(Changed.dependencies(DefDoc), DefDeps);

  // The calling unit reads the linked file: the declared function's summary
  // by USR, the callers' side; its own callers' summaries one level deeper.
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test", "json", Path));
  ASSERT_FALSE(bool(writeSummaryFile(Path, Linked)));
  auto Reader = parse(std::string(Shared) + R"cpp(
torch::Tensor report(Net &m, torch::Tensor x) { return evaluate_actions(m, x); }
)cpp", "report.cpp");
  EXPECT_EQ(Reader->Core.configure(Path, ""), "");
  const FunctionSummary *Ext = Reader->Core.externalSummary(Reader->declared("evaluate_actions"));
  ASSERT_TRUE(Ext);
  EXPECT_EQ(Ext->UnguardedForward, 0u);
  EXPECT_TRUE(Reader->Core.resultReachesBackwardElsewhere(Reader->declared("evaluate_actions")));
  // Defined here: its own summary decides, never the linked one.
  EXPECT_FALSE(Reader->Core.externalSummary(Reader->declared("score")));
  const FunctionSummary *Report = Reader->Core.summaries(Reader->ctx()).lookup(
      Reader->declared("report"));
  ASSERT_TRUE(Report);
  EXPECT_EQ(Report->UnguardedForward, 1u);
  llvm::sys::fs::remove(Path);

  // A bad file is one line and the core works on without it.
  AnalysisCore Fresh;
  std::string Error = Fresh.configure("/nonexistent/linked.json", "");
  EXPECT_NE(Error.find("option TorchSummaries: cannot read"), std::string::npos);
  EXPECT_EQ(Error.find('\n'), std::string::npos);
  EXPECT_FALSE(Fresh.external());
  EXPECT_EQ(Fresh.configure("/nonexistent/linked.json", ""), ""); // reported once
}

// A chain of calls over three files: main.cpp's evaluate calls run_batch
// (batch.cpp), which calls predict (model.cpp), which runs the forward pass.
// A lambda the function runs itself is its body for the calls it records of
// other files' functions too; a lambda it only makes is not.
TEST(Link, LambdasTheFunctionRunsCallOtherFiles) {
  const char *Decls = R"cpp(
#include <functional>
torch::Tensor predict(Net &m, torch::Tensor x);
)cpp";
  auto Model = parse(std::string(Decls) + R"cpp(
torch::Tensor predict(Net &m, torch::Tensor x) { return m->forward(x); }
)cpp", "model.cpp");
  auto Runner = parse(std::string(Decls) + R"cpp(
torch::Tensor run_lambda(Net &m, torch::Tensor x) {
  auto f = [&] { return predict(m, x); };
  return f();
}
std::function<torch::Tensor()> make(Net &m, torch::Tensor x) {
  return [&m, x] { return predict(m, x); };
}
)cpp", "runner.cpp");
  std::string Predict = usrOf(Model->declared("predict"));
  SummaryDocument RunnerDoc = Runner->document();
  const FunctionSummary *Run = RunnerDoc.lookup(usrOf(Runner->declared("run_lambda")));
  ASSERT_TRUE(Run);
  ASSERT_EQ(Run->ExternalCalls.count(Predict), 1u);
  EXPECT_EQ(Run->ExternalCalls.at(Predict).UnguardedLevel, 0u);
  const FunctionSummary *Make = RunnerDoc.lookup(usrOf(Runner->declared("make")));
  EXPECT_TRUE(!Make || Make->ExternalCalls.count(Predict) == 0);
  SummaryDocument Linked;
  Linked.merge(Model->document());
  Linked.merge(RunnerDoc);
  Linked.composeCalls();
  EXPECT_EQ(Linked.lookup(usrOf(Runner->declared("run_lambda")))->UnguardedForward, 1u);
}

// Each unit records the other units' functions it calls; linking composes
// their effects, whatever the order of the units, and a guard on the way
// keeps the forward pass guarded.
TEST(Link, ChainsOfCallsOverSeveralFiles) {
  const char *Decls = R"cpp(
torch::Tensor predict(Net &m, torch::Tensor x);
torch::Tensor run_batch(Net &m, torch::Tensor x);
torch::Tensor run_guarded(Net &m, torch::Tensor x);
)cpp";
  auto Model = parse(std::string(Decls) + R"cpp(
torch::Tensor predict(Net &m, torch::Tensor x) { return m->forward(x); }
)cpp", "model.cpp");
  auto Batch = parse(std::string(Decls) + R"cpp(
static torch::Tensor inner(Net &m, torch::Tensor x) { return predict(m, x); }
torch::Tensor run_batch(Net &m, torch::Tensor x) { return inner(m, x); }
torch::Tensor run_guarded(Net &m, torch::Tensor x) {
  torch::NoGradGuard guard;
  return predict(m, x);
}
)cpp", "batch.cpp");
  auto Main = parse(std::string(Decls) + R"cpp(
torch::Tensor evaluate(Net &m, torch::Tensor x) { return run_batch(m, x); }
torch::Tensor evaluate_guarded(Net &m, torch::Tensor x) { return run_guarded(m, x); }
)cpp", "main.cpp");
  std::string Predict = usrOf(Model->declared("predict"));
  std::string RunBatch = usrOf(Batch->declared("run_batch"));
  std::string RunGuarded = usrOf(Batch->declared("run_guarded"));
  std::string Evaluate = usrOf(Main->declared("evaluate"));
  std::string EvaluateGuarded = usrOf(Main->declared("evaluate_guarded"));

  // In its own unit, run_batch reaches predict through inner (one level
  // down); run_guarded's call is guarded; nothing is reached yet.
  SummaryDocument BatchDoc = Batch->document();
  const FunctionSummary *RB = BatchDoc.lookup(RunBatch);
  ASSERT_TRUE(RB);
  EXPECT_EQ(RB->Forward, NotReached);
  ASSERT_EQ(RB->ExternalCalls.count(Predict), 1u);
  EXPECT_EQ(RB->ExternalCalls.at(Predict).Level, 1u);
  EXPECT_EQ(RB->ExternalCalls.at(Predict).UnguardedLevel, 1u);
  const FunctionSummary *RG = BatchDoc.lookup(RunGuarded);
  ASSERT_TRUE(RG);
  EXPECT_EQ(RG->ExternalCalls.at(Predict).Level, 0u);
  EXPECT_EQ(RG->ExternalCalls.at(Predict).UnguardedLevel, NotReached);
  FunctionSummary OnlyCalls = summary("c:@F@only_calls", NotReached, false, 0);
  OnlyCalls.ExternalCalls[Predict] = {0, 0};
  EXPECT_TRUE(OnlyCalls.isEmpty()); // calls are not effects

  // The calls survive the text form.
  auto Back = parseSummaryDocument(BatchDoc.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(*Back->lookup(RunBatch), *RB);
  std::string Bad = BatchDoc.toText();
  size_t At = Bad.find("\"level\":");
  ASSERT_NE(At, std::string::npos);
  Bad.replace(At, 8, "\"level\":\"deep\",\"x\":");
  auto Broken = parseSummaryDocument(Bad);
  ASSERT_FALSE(bool(Broken));
  EXPECT_NE(llvm::toString(Broken.takeError()).find("expected {\"usr\": a USR, \"level\""),
            std::string::npos);

  SummaryDocument Forward, Backward;
  for (SummaryDocument *D : {&Forward, &Backward}) {
    std::vector<SummaryDocument> Docs{Model->document(), BatchDoc, Main->document()};
    if (D == &Backward)
      std::reverse(Docs.begin(), Docs.end());
    for (const SummaryDocument &Doc : Docs)
      D->merge(Doc);
    D->composeCalls();
  }
  EXPECT_EQ(Forward.toText(), Backward.toText());

  // evaluate -> run_batch -> inner -> predict -> forward: three levels.
  const FunctionSummary *E = Forward.lookup(Evaluate);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Forward, 3u);
  EXPECT_EQ(E->UnguardedForward, 3u);
  EXPECT_FALSE(E->isEmpty());
  EXPECT_EQ(Forward.lookup(RunBatch)->UnguardedForward, 2u);
  // Through run_guarded: a forward pass, but a guarded one.
  const FunctionSummary *EG = Forward.lookup(EvaluateGuarded);
  ASSERT_TRUE(EG);
  EXPECT_EQ(EG->Forward, 2u);
  EXPECT_EQ(EG->UnguardedForward, NotReached);

  // A cycle of calls across files ends; the depth limit holds.
  SummaryDocument Cycle;
  FunctionSummary A = summary("c:@F@a", NotReached, false, 0);
  FunctionSummary B = summary("c:@F@b", NotReached, false, 0);
  A.ExternalCalls["c:@F@b"] = {0, 0};
  B.ExternalCalls["c:@F@a"] = {0, 0};
  B.ExternalCalls["c:@F@c"] = {MaxSummaryDepth - 1, MaxSummaryDepth - 1};
  FunctionSummary C = summary("c:@F@c", 0, false, 0);
  Cycle.Functions = {{A.USR, A}, {B.USR, B}, {C.USR, C}};
  Cycle.composeCalls();
  EXPECT_EQ(Cycle.lookup("c:@F@b")->Forward, MaxSummaryDepth);
  EXPECT_EQ(Cycle.lookup("c:@F@a")->Forward, NotReached); // one level too deep
}

TEST(Link, WhatAUnitAskedDecidesWhetherItsFindingsDependOnOthers) {
  // Without a linked document, the core still records the questions; the
  // unit's document carries them (not linked).
  auto Reader = parse(std::string(Shared) + R"cpp(
torch::Tensor report(Net &m, torch::Tensor x) { return evaluate_actions(m, x); }
)cpp", "report.cpp");
  llvm::SmallString<128> Out;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-out", "json", Out));
  EXPECT_EQ(Reader->Core.configure("", Out), "");
  const FunctionDecl *Declared = Reader->declared("evaluate_actions");
  const FunctionDecl *Report = Reader->declared("report");
  std::string USR = usrOf(Declared), ReportUSR = usrOf(Report);
  EXPECT_FALSE(Reader->Core.externalSummary(Declared));
  EXPECT_FALSE(Reader->Core.externalSummary(Reader->declared("score"))); // defined: no question
  EXPECT_FALSE(Reader->Core.resultReachesBackwardElsewhere(Report));
  Reader->Core.summaries(Reader->ctx());
  EXPECT_EQ(Reader->Core.endTranslationUnit(), "");
  auto Unit = readSummaryFile(Out);
  llvm::sys::fs::remove(Out);
  ASSERT_TRUE(bool(Unit)) << llvm::toString(Unit.takeError());
  EXPECT_EQ(Unit->ReadsSummaries, std::set<std::string>{USR});
  EXPECT_EQ(Unit->ReadsCallers, std::set<std::string>{ReportUSR});
  auto Back = parseSummaryDocument(Unit->toText());
  ASSERT_TRUE(bool(Back));
  EXPECT_EQ(Back->toText(), Unit->toText());
  SummaryDocument Linked;
  Linked.merge(*Unit);
  EXPECT_TRUE(Linked.ReadsSummaries.empty() && Linked.ReadsCallers.empty());

  // Nothing linked for what it asked, or an empty summary: the same answers
  // as without a document. An effect, or a caller elsewhere that
  // backpropagates its result: its findings depend on the link.
  EXPECT_FALSE(Linked.changesAnalysisOf(*Unit));
  Linked.Functions[USR] = summary(USR, NotReached, false, 2);
  Linked.Functions["c:@F@other"] = summary("c:@F@other", 0, true, 0);
  Linked.ResultReachesBackward.insert("c:@F@other");
  EXPECT_FALSE(Linked.changesAnalysisOf(*Unit));
  SummaryDocument Effect = Linked;
  Effect.Functions[USR].Step = 3;
  EXPECT_TRUE(Effect.changesAnalysisOf(*Unit));
  SummaryDocument Param = Linked;
  Param.Functions[USR].Params[1].Inserted = true;
  EXPECT_TRUE(Param.changesAnalysisOf(*Unit));
  SummaryDocument Callers = Linked;
  Callers.ResultReachesBackward.insert(ReportUSR);
  EXPECT_TRUE(Callers.changesAnalysisOf(*Unit));

  // A unit in which no check asked the core anything still writes its
  // document (whichever checks run, the summaries are written).
  AnalysisCore Idle;
  llvm::SmallString<128> None;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-none", "json", None));
  llvm::sys::fs::remove(None);
  EXPECT_EQ(Idle.configure("", None), "");
  Idle.beginTranslationUnit();
  EXPECT_EQ(Idle.endTranslationUnit(), "");
  EXPECT_TRUE(llvm::sys::fs::exists(None));
  llvm::sys::fs::remove(None);

  // The summaries are built at the end of the unit when no check asked for
  // them: the same document as when one did.
  auto Fresh = parse(std::string(Shared) + R"cpp(
torch::Tensor report(Net &m, torch::Tensor x) { return evaluate_actions(m, x); }
)cpp", "report.cpp");
  llvm::SmallString<128> Built;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-built", "json", Built));
  EXPECT_EQ(Fresh->Core.configure("", Built), "");
  (void)Fresh->Core.userFunctions(Fresh->ctx()); // the core's pass over the functions
  EXPECT_EQ(Fresh->Core.endTranslationUnit(), "");
  auto Whole = readSummaryFile(Built);
  llvm::sys::fs::remove(Built);
  ASSERT_TRUE(bool(Whole)) << llvm::toString(Whole.takeError());
  SummaryDocument Asked = *Unit;
  Asked.ReadsSummaries.clear();
  Asked.ReadsCallers.clear();
  EXPECT_FALSE(Whole->Functions.empty());
  EXPECT_EQ(Whole->toText(), Asked.toText());
}

// The callers' side of the guard: each unit records, for the functions it
// calls without defining them, whether every call holds a guard on every
// path; the link answers "every call in the project is guarded" only when
// some unit calls the function and no unit calls it unguarded.
TEST(Link, CallersGuardsAreRecordedAndLinked) {
  const char *Decl = R"cpp(
torch::Tensor evaluate_batch(Net &m, torch::Tensor x);
)cpp";
  auto WriteUnit = [&](llvm::StringRef Code, llvm::StringRef Name) {
    return writtenDocument(*parse(std::string(Decl) + Code.str(), Name));
  };
  // Guarded at the call, and through the only chain of callers above it.
  SummaryDocument Guarded = WriteUnit(R"cpp(
double report(Net &m, torch::Tensor x) { torch::NoGradGuard g; return evaluate_batch(m, x).sum().item<double>(); }
static double inner(Net &m, torch::Tensor x) { return evaluate_batch(m, x).sum().item<double>(); }
double outer(Net &m, torch::Tensor x) { torch::NoGradGuard g; return inner(m, x); }
)cpp", "guarded.cpp");
  // One call guarded, one not: unguarded (main is nobody else's to call).
  SummaryDocument Mixed = WriteUnit(R"cpp(
double a(Net &m, torch::Tensor x) { torch::NoGradGuard g; return evaluate_batch(m, x).sum().item<double>(); }
int main() { Net m; return evaluate_batch(m, torch::ones({2})).sum().item<int>(); }
)cpp", "mixed.cpp");
  // No guard of its own, below a function other files may call: guarded
  // when that one is (decided by the link).
  SummaryDocument Open = WriteUnit(R"cpp(
double b(Net &m, torch::Tensor x) { return evaluate_batch(m, x).sum().item<double>(); }
)cpp", "open.cpp");
  auto Use = parse(Decl, "decl.cpp");
  std::string USR = usrOf(Use->declared("evaluate_batch"));
  ASSERT_FALSE(USR.empty());
  EXPECT_EQ(Guarded.CalledGuarded, std::set<std::string>{USR});
  EXPECT_TRUE(Guarded.CalledUnguarded.empty());
  EXPECT_TRUE(Guarded.CalledUnguardedVia.empty());
  EXPECT_EQ(Mixed.CalledUnguarded, std::set<std::string>{USR});
  EXPECT_TRUE(Mixed.CalledGuarded.empty());
  EXPECT_TRUE(Mixed.CalledUnguardedVia.empty());
  EXPECT_TRUE(Open.CalledUnguarded.empty());
  ASSERT_EQ(Open.CalledUnguardedVia.size(), 1u);
  EXPECT_EQ(Open.CalledUnguardedVia.begin()->first, USR);
  ASSERT_EQ(Open.CalledUnguardedVia.begin()->second.size(), 1u);
  EXPECT_NE(Open.CalledUnguardedVia.begin()->second.begin()->find("@F@b#"), std::string::npos);

  // Round trip of the fields.
  for (const SummaryDocument *D : {&Mixed, &Open}) {
    auto Back = parseSummaryDocument(D->toText());
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    EXPECT_EQ(Back->CalledUnguarded, D->CalledUnguarded);
    EXPECT_EQ(Back->CalledUnguardedVia, D->CalledUnguardedVia);
    EXPECT_EQ(Back->toText(), D->toText());
  }
  // Nobody calls b: its call of evaluate_batch is not guarded.
  SummaryDocument OpenAlone = Open;
  OpenAlone.composeCalls();
  EXPECT_FALSE(OpenAlone.calledOnlyUnderGuards(USR));
  EXPECT_TRUE(OpenAlone.CalledUnguardedVia.empty());

  // The defining unit asks; what it asked decides whether the link changes it.
  auto Definer = parse(R"cpp(
torch::Tensor evaluate_batch(Net &m, torch::Tensor x) { return m->forward(x); }
)cpp", "a.cpp");
  const FunctionDecl *Def = Definer->declared("evaluate_batch");
  EXPECT_FALSE(Definer->Core.calledOnlyUnderGuardsElsewhere(Def)); // no document
  SummaryDocument Defining = Definer->document();
  Defining.ReadsCallers.insert(USR);

  // Only guarded calls in the project: every caller guarded.
  SummaryDocument One;
  One.merge(Defining);
  One.merge(Guarded);
  EXPECT_TRUE(One.calledOnlyUnderGuards(USR));
  EXPECT_TRUE(One.changesAnalysisOf(Defining));
  EXPECT_NE(One.dependencies(Defining).find("called only under guards: " + USR),
            std::string::npos);
  // Guarded in one unit, unguarded in another: not, whatever the order.
  SummaryDocument Two = One, Three;
  Two.merge(Mixed);
  Three.merge(Mixed);
  Three.merge(Guarded);
  Three.merge(Defining);
  EXPECT_FALSE(Two.calledOnlyUnderGuards(USR));
  EXPECT_FALSE(Three.calledOnlyUnderGuards(USR));
  EXPECT_EQ(Two.toText(), Three.toText());
  EXPECT_FALSE(Two.changesAnalysisOf(Defining));
  EXPECT_EQ(Two.dependencies(Defining).find("called only under guards"), std::string::npos);
  // The calling unit is missing (it did not compile: no summary): no caller
  // known anywhere, not silenced (as within one file).
  SummaryDocument Alone;
  Alone.merge(Defining);
  EXPECT_FALSE(Alone.calledOnlyUnderGuards(USR));
  EXPECT_FALSE(Alone.changesAnalysisOf(Defining));

  // The core answers from a loaded linked file.
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-linked", "json", Path));
  ASSERT_FALSE(bool(writeSummaryFile(Path, One)));
  EXPECT_EQ(Definer->Core.configure(Path, ""), "");
  EXPECT_TRUE(Definer->Core.calledOnlyUnderGuardsElsewhere(Def));
  ASSERT_FALSE(bool(writeSummaryFile(Path, Two)));
  AnalysisCore Other;
  EXPECT_EQ(Other.configure(Path, ""), "");
  EXPECT_FALSE(Other.calledOnlyUnderGuardsElsewhere(Def));
  llvm::sys::fs::remove(Path);
}

// The callers' side of the guard over chains of files: a call with no guard
// of its own is guarded when each function at the top of its chain in its
// unit is called only under guards elsewhere, through any number of files.
TEST(Link, CallersGuardsComposeOverChainsOfFiles) {
  const char *Decls = R"cpp(
torch::Tensor evaluate_batch(Net &m, torch::Tensor x);
torch::Tensor stage(Net &m, torch::Tensor x);
torch::Tensor detect(Net &m, torch::Tensor x);
)cpp";
  auto WriteUnit = [&](llvm::StringRef Code, llvm::StringRef Name) {
    return writtenDocument(*parse(std::string(Decls) + Code.str(), Name));
  };
  // app.cpp -> detect (pipeline.cpp) -> stage (mid.cpp) -> evaluate_batch.
  SummaryDocument Mid = WriteUnit(R"cpp(
static torch::Tensor inner(Net &m, torch::Tensor x) { return evaluate_batch(m, x); }
torch::Tensor stage(Net &m, torch::Tensor x) { return inner(m, x) * 2; }
)cpp", "mid.cpp");
  SummaryDocument Pipeline = WriteUnit(R"cpp(
torch::Tensor detect(Net &m, torch::Tensor x) { return stage(m, x); }
)cpp", "pipeline.cpp");
  SummaryDocument App = WriteUnit(R"cpp(
double bench(Net &m, torch::Tensor x) { torch::NoGradGuard g; return detect(m, x).sum().item<double>(); }
)cpp", "app.cpp");
  SummaryDocument Unguarded = WriteUnit(R"cpp(
int main() { Net m; return detect(m, torch::ones({2})).sum().item<int>(); }
)cpp", "tool.cpp");
  // A static function at the top of the chain: nobody elsewhere can guard it.
  SummaryDocument Hidden = WriteUnit(R"cpp(
static torch::Tensor local_only(Net &m, torch::Tensor x) { return evaluate_batch(m, x); }
torch::Tensor use(Net &m, torch::Tensor x);
)cpp", "hidden.cpp");
  auto Use = parse(Decls, "decl.cpp");
  std::string Eval = usrOf(Use->declared("evaluate_batch"));
  std::string Stage = usrOf(Use->declared("stage"));
  std::string Detect = usrOf(Use->declared("detect"));
  EXPECT_EQ(Mid.CalledUnguardedVia[Eval], std::set<std::string>{Stage});
  EXPECT_EQ(Pipeline.CalledUnguardedVia[Stage], std::set<std::string>{Detect});
  EXPECT_EQ(App.CalledGuarded, std::set<std::string>{Detect});
  EXPECT_TRUE(Hidden.CalledUnguardedVia.empty()); // local_only is never called

  auto Link = [](std::initializer_list<const SummaryDocument *> Docs) {
    SummaryDocument L;
    for (const SummaryDocument *D : Docs)
      L.merge(*D);
    L.composeCalls();
    return L;
  };
  // Guarded two files up, in any order of the units.
  SummaryDocument All = Link({&Mid, &Pipeline, &App});
  EXPECT_TRUE(All.calledOnlyUnderGuards(Eval));
  EXPECT_TRUE(All.calledOnlyUnderGuards(Stage));
  EXPECT_TRUE(All.calledOnlyUnderGuards(Detect));
  EXPECT_TRUE(All.CalledUnguardedVia.empty());
  EXPECT_EQ(Link({&App, &Mid, &Pipeline}).toText(), All.toText());
  // A link of a linked document with nothing new changes nothing.
  SummaryDocument Again = All;
  Again.composeCalls();
  EXPECT_EQ(Again.toText(), All.toText());
  // One unguarded call at the top: every call below it is unguarded.
  SummaryDocument Some = Link({&Mid, &Pipeline, &App, &Unguarded});
  EXPECT_FALSE(Some.calledOnlyUnderGuards(Detect));
  EXPECT_FALSE(Some.calledOnlyUnderGuards(Stage));
  EXPECT_FALSE(Some.calledOnlyUnderGuards(Eval));
  EXPECT_EQ(Link({&Unguarded, &App, &Pipeline, &Mid}).toText(), Some.toText());
  // A link in the middle missing (it did not compile): unknown, not guarded.
  EXPECT_FALSE(Link({&Mid, &App}).calledOnlyUnderGuards(Eval));

  // A cycle of files with no guard anywhere is not guarded.
  SummaryDocument F = WriteUnit(R"cpp(
torch::Tensor g(Net &m, torch::Tensor x);
torch::Tensor f(Net &m, torch::Tensor x) { return g(m, x) + evaluate_batch(m, x); }
)cpp", "f.cpp");
  SummaryDocument G = WriteUnit(R"cpp(
torch::Tensor f(Net &m, torch::Tensor x);
torch::Tensor g(Net &m, torch::Tensor x) { return f(m, x); }
)cpp", "g.cpp");
  SummaryDocument Cycle = Link({&F, &G});
  EXPECT_FALSE(Cycle.calledOnlyUnderGuards(Eval));
  EXPECT_EQ(Cycle.CalledUnguarded.count(Eval), 1u);
}

// FunctionSummary::LoopEvents: what a call adds to a caller's training loop
// (torch-missing-zero-grad across files), per depth the caller follows.
const char *Steps = R"cpp(
void train_step(Net &m, torch::optim::SGD &opt, torch::Tensor x);
void fit(Net &m, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data);
)cpp";

TEST(Link, LoopEventsAreSummarisedLinkedAndAsked) {
  auto Def = parse(std::string(Steps) + R"cpp(
void train_step(Net &m, torch::optim::SGD &opt, torch::Tensor x) {
  auto loss = m->forward(x).sum();
  loss.backward();
  opt.step();
}
void zeroing(Net &m, torch::optim::SGD &opt, torch::Tensor x) {
  opt.zero_grad();
  train_step(m, opt, x);
}
void maybe(Net &m, torch::optim::SGD &opt, torch::Tensor x, bool b) {
  m->forward(x).sum().backward();
  if (b)
    opt.step();
}
void evaluate(Net &m, torch::Tensor x) { m->forward(x); }
)cpp", "steps.cpp");
  SummaryDocument DefDoc = Def->document();
  auto Events = [&](llvm::StringRef Name) {
    const FunctionSummary *S = DefDoc.lookup(usrOf(Def->declared(Name)));
    EXPECT_TRUE(S) << Name.str();
    return S ? S->LoopEvents : std::vector<std::string>{"missing"};
  };
  EXPECT_EQ(Events("train_step"), std::vector<std::string>{"BS"});
  // A caller following one level sees zeroing's own body (train_step
  // receives the optimizer: opaque); two levels, train_step's events too.
  EXPECT_EQ(Events("zeroing"), (std::vector<std::string>{"O", "ZBS"}));
  EXPECT_EQ(Events("maybe"), std::vector<std::string>{"O"});
  EXPECT_TRUE(Events("evaluate").empty());
  const FunctionSummary *Step = DefDoc.lookup(usrOf(Def->declared("train_step")));
  ASSERT_TRUE(Step);
  EXPECT_EQ(Step->loopEventsAt(0), "");
  EXPECT_EQ(Step->loopEventsAt(1), "BS");
  EXPECT_EQ(Step->loopEventsAt(5), "BS"); // the last entry holds deeper

  // Text round trip; a malformed field is one line.
  auto Back = parseSummaryDocument(DefDoc.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->toText(), DefDoc.toText());
  auto Bad = parseSummaryDocument(
      R"({"version": 1, "functions": [{"usr": "x", "name": "x", "disablesGrad": false,
      "returnsHistory": false, "returnsHistoryFromArgs": false, "params": [], "loopEvents": 3}],
      "resultReachesBackward": []})");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("loopEvents"), std::string::npos);

  // Linking: equal entries stay, different ones are opaque, in any order;
  // trailing repeats are dropped.
  SummaryDocument A, B;
  A.Functions["c:@F@f"] = summary("c:@F@f", NotReached, false, 0);
  B.Functions["c:@F@f"] = summary("c:@F@f", NotReached, false, 0);
  A.Functions["c:@F@f"].LoopEvents = {"", "BS"};
  B.Functions["c:@F@f"].LoopEvents = {"BS"};
  SummaryDocument AB = A, BA = B;
  AB.merge(B);
  BA.merge(A);
  EXPECT_EQ(AB.toText(), BA.toText());
  EXPECT_EQ(AB.lookup("c:@F@f")->LoopEvents, (std::vector<std::string>{"O", "BS"}));
  SummaryDocument AA = A;
  AA.merge(A);
  EXPECT_EQ(AA.lookup("c:@F@f")->LoopEvents, (std::vector<std::string>{"", "BS"}));
  std::vector<std::string> Repeats{"S", "BS", "BS", "BS"}, Nothing{"", ""};
  normaliseLoopEvents(Repeats);
  normaliseLoopEvents(Nothing);
  EXPECT_EQ(Repeats, (std::vector<std::string>{"S", "BS"}));
  EXPECT_TRUE(Nothing.empty());

  // The calling unit: its loop is a training loop only with the linked
  // summary; the question is recorded with or without it, and a summary that
  // holds loop events alone changes its findings.
  const char *Loop = R"cpp(
void fit(Net &m, torch::optim::SGD &opt, const std::vector<torch::Tensor> &data) {
  for (const auto &x : data)
    train_step(m, opt, x);
}
)cpp";
  std::string StepUSR = usrOf(Def->declared("train_step"));
  auto Alone = parse(std::string(Steps) + Loop, "loops.cpp");
  const FunctionDecl *Fit = Alone->declared("fit")->getDefinition();
  EXPECT_TRUE(Alone->Core.trainingLoops(Fit, Alone->ctx(), 3, /*Linked=*/true).loops().empty());
  llvm::SmallString<128> Out;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-loops", "json", Out));
  EXPECT_EQ(Alone->Core.configure("", Out), "");
  Alone->Core.trainingLoops(Fit, Alone->ctx(), 3, /*Linked=*/true);
  Alone->Core.summaries(Alone->ctx());
  EXPECT_EQ(Alone->Core.endTranslationUnit(), "");
  auto Unit = readSummaryFile(Out);
  llvm::sys::fs::remove(Out);
  ASSERT_TRUE(bool(Unit)) << llvm::toString(Unit.takeError());
  EXPECT_TRUE(Unit->ReadsSummaries.count(StepUSR));
  SummaryDocument OnlyEvents;
  OnlyEvents.Functions[StepUSR] = summary(StepUSR, NotReached, false, 3);
  EXPECT_FALSE(OnlyEvents.changesAnalysisOf(*Unit));
  OnlyEvents.Functions[StepUSR].LoopEvents = {"BS"};
  EXPECT_TRUE(OnlyEvents.changesAnalysisOf(*Unit));

  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-linked", "json", Path));
  ASSERT_FALSE(bool(writeSummaryFile(Path, DefDoc)));
  auto Reader = parse(std::string(Steps) + Loop, "loops.cpp");
  EXPECT_EQ(Reader->Core.configure(Path, ""), "");
  const FunctionDecl *ReaderFit = Reader->declared("fit")->getDefinition();
  EXPECT_TRUE(Reader->Core.trainingLoops(ReaderFit, Reader->ctx(), 3).loops().empty());
  const TrainingLoopAnalysis &Linked =
      Reader->Core.trainingLoops(ReaderFit, Reader->ctx(), 3, /*Linked=*/true);
  ASSERT_EQ(Linked.loops().size(), 1u);
  EXPECT_FALSE(Linked.loops().front().zeroesGradients());
  ASSERT_EQ(Linked.loops().front().OptimizerSteps.size(), 1u);
  EXPECT_EQ(Linked.loops().front().OptimizerSteps.front()->Linked,
            Reader->declared("train_step"));
  // A caller that follows no call (CallDepth 0) reads nothing.
  EXPECT_TRUE(
      Reader->Core.trainingLoops(ReaderFit, Reader->ctx(), 0, /*Linked=*/true).loops().empty());
  llvm::sys::fs::remove(Path);
}

// FunctionSummary::KeepsNoHistory: a call keeps nothing it is given or
// computes but through its result (Escapes.h), written with the unit's
// summaries, merged only when every unit says it, asked apart (ReadsKeeps).
TEST(Link, KeepsNoHistoryIsSummarisedLinkedAndAsked) {
  const char *Decls = R"cpp(
struct Policy {
  torch::nn::Linear net{nullptr};
  torch::Tensor last;
};
torch::Tensor sample(Policy &p, torch::Tensor x);
torch::Tensor sample_and_keep(Policy &p, torch::Tensor x);
std::vector<torch::Tensor> kept;
torch::Tensor stash(torch::Tensor x);
)cpp";
  auto Def = parse(std::string(Decls) + R"cpp(
torch::Tensor sample(Policy &p, torch::Tensor x) { auto y = p.net->forward(x); return y.softmax(1); }
torch::Tensor sample_and_keep(Policy &p, torch::Tensor x) { p.last = p.net->forward(x); return p.last; }
torch::Tensor stash(torch::Tensor x) { kept.push_back(x * 2); return x; }
int count(int n) { return n + 1; }
)cpp", "policy.cpp");
  SummaryDocument Doc = writtenDocument(*Def);
  ASSERT_FALSE(Doc.Functions.empty());
  auto Keeps = [&](const SummaryDocument &D, llvm::StringRef Name) {
    for (const auto &[USR, S] : D.Functions)
      if (S.Name == Name)
        return S.KeepsNoHistory;
    ADD_FAILURE() << "no summary of " << Name.str();
    return false;
  };
  EXPECT_TRUE(Keeps(Doc, "sample"));
  EXPECT_FALSE(Keeps(Doc, "sample_and_keep")); // a member of its argument
  EXPECT_FALSE(Keeps(Doc, "stash"));           // a global container
  EXPECT_FALSE(Keeps(Doc, "count"));           // no tensor parameter: not recorded
  std::string Sample;
  for (const auto &[USR, S] : Doc.Functions)
    if (S.Name == "sample")
      Sample = USR;
  // Information, not an effect: an otherwise empty summary stays empty.
  FunctionSummary Only;
  Only.USR = "c:@F@only#";
  Only.KeepsNoHistory = true;
  EXPECT_TRUE(Only.isEmpty());
  // Round trip.
  auto Back = parseSummaryDocument(Doc.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->toText(), Doc.toText());
  EXPECT_TRUE(Keeps(*Back, "sample"));
  // A merge keeps it only when every unit says it, in either order.
  SummaryDocument Other = Doc;
  Other.Functions[Sample].KeepsNoHistory = false;
  SummaryDocument AB = Doc, BA = Other;
  AB.merge(Other);
  BA.merge(Doc);
  EXPECT_FALSE(Keeps(AB, "sample"));
  EXPECT_EQ(AB.toText(), BA.toText());

  // The caller's unit asks, the question is recorded apart, and the linked
  // answer decides whether its findings depend on the link.
  auto Use = parse(std::string(Decls) + R"cpp(
torch::Tensor act(Policy &p, torch::Tensor obs) { auto probs = sample(p, obs); return probs.argmax(1).detach(); }
)cpp", "agent.cpp");
  const auto *SampleDecl = Use->declared("sample");
  ASSERT_NE(SampleDecl, nullptr);
  SummaryDocument Asked = writtenDocument(*Use, [&](Unit &U) {
    EXPECT_FALSE(U.Core.keepsNoHistoryElsewhere(SampleDecl)); // no linked document
  });
  EXPECT_EQ(Asked.ReadsKeeps, std::set<std::string>{Sample});
  EXPECT_TRUE(Asked.ReadsSummaries.empty());
  EXPECT_TRUE(Doc.changesAnalysisOf(Asked));
  EXPECT_FALSE(AB.changesAnalysisOf(Asked));
  llvm::SmallString<128> Linked;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("link-test-keeps-linked", "json", Linked));
  ASSERT_FALSE(bool(writeSummaryFile(Linked, Doc)));
  AnalysisCore Reader;
  EXPECT_EQ(Reader.configure(Linked, ""), "");
  EXPECT_TRUE(Reader.keepsNoHistoryElsewhere(SampleDecl));
  llvm::sys::fs::remove(Linked);
}

// KeepsNoHistoryIf: "keeps nothing" over a chain of files, through a local
// object of the user's class whose methods another file defines.
TEST(Link, KeepsNoHistoryComposesOverChainsOfFiles) {
  const char *Decls = R"cpp(
class Normal {
public:
  Normal(const torch::Tensor &m, const torch::Tensor &s) : mean(m), stddev(s) {}
  torch::Tensor rsample();
  torch::Tensor rsampleAndKeep();
private:
  torch::Tensor mean, stddev;
};
std::vector<torch::Tensor> seen;
torch::Tensor sample(torch::nn::Linear &net, torch::Tensor x);
torch::Tensor sample_kept(torch::nn::Linear &net, torch::Tensor x);
)cpp";
  auto Normals = parse(std::string(Decls) + R"cpp(
torch::Tensor Normal::rsample() { return mean + stddev; }
torch::Tensor Normal::rsampleAndKeep() { seen.push_back(mean); return mean + stddev; }
)cpp", "normal.cpp");
  auto Actor = parse(std::string(Decls) + R"cpp(
torch::Tensor sample(torch::nn::Linear &net, torch::Tensor x) {
  auto mu = net->forward(x);
  Normal dist(mu, mu.exp());
  return dist.rsample();
}
torch::Tensor sample_kept(torch::nn::Linear &net, torch::Tensor x) {
  auto mu = net->forward(x);
  Normal dist(mu, mu.exp());
  return dist.rsampleAndKeep();
}
)cpp", "actor.cpp");
  SummaryDocument N = writtenDocument(*Normals), A = writtenDocument(*Actor);
  auto Find = [](const SummaryDocument &D, llvm::StringRef Name) -> const FunctionSummary * {
    for (const auto &[USR, S] : D.Functions)
      if (S.Name == Name)
        return &S;
    ADD_FAILURE() << "no summary of " << Name.str();
    return nullptr;
  };
  // Methods with no tensor parameter are asked about (their object holds
  // tensors); each unit says what it relies on.
  ASSERT_TRUE(Find(N, "Normal::rsample") && Find(N, "Normal::rsampleAndKeep"));
  EXPECT_TRUE(Find(N, "Normal::rsample")->KeepsNoHistory);
  EXPECT_FALSE(Find(N, "Normal::rsampleAndKeep")->KeepsNoHistory);
  const FunctionSummary *Sample = Find(A, "sample"), *Kept = Find(A, "sample_kept");
  ASSERT_TRUE(Sample && Kept);
  EXPECT_TRUE(Sample->KeepsNoHistory);
  EXPECT_EQ(Sample->KeepsNoHistoryIf, std::set<std::string>{Find(N, "Normal::rsample")->USR});
  EXPECT_TRUE(Kept->KeepsNoHistory); // until the link
  std::string SampleUSR = Sample->USR, KeptUSR = Kept->USR;
  // Round trip of the condition.
  auto Back = parseSummaryDocument(A.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->toText(), A.toText());

  // Linked, in either order: decided, no condition left.
  for (bool NormalFirst : {true, false}) {
    SummaryDocument L = NormalFirst ? N : A;
    L.merge(NormalFirst ? A : N);
    L.composeCalls();
    EXPECT_TRUE(L.lookup(SampleUSR)->KeepsNoHistory);
    EXPECT_FALSE(L.lookup(KeptUSR)->KeepsNoHistory);
    EXPECT_TRUE(L.lookup(SampleUSR)->KeepsNoHistoryIf.empty());
  }
  // A unit missing from the link: unknown, so it keeps.
  SummaryDocument Alone = A;
  Alone.composeCalls();
  EXPECT_FALSE(Alone.lookup(SampleUSR)->KeepsNoHistory);
  // A cycle of functions that rely on each other and keep nothing else:
  // nothing is kept anywhere.
  SummaryDocument Cycle;
  for (const char *USR : {"c:@F@f#", "c:@F@g#"}) {
    FunctionSummary S;
    S.USR = USR;
    S.KeepsNoHistory = true;
    S.KeepsNoHistoryIf = {std::string(USR) == "c:@F@f#" ? "c:@F@g#" : "c:@F@f#"};
    Cycle.Functions[USR] = S;
  }
  Cycle.composeCalls();
  EXPECT_TRUE(Cycle.lookup("c:@F@f#")->KeepsNoHistory);
  // A merge unions the conditions when both keep nothing, in either order.
  SummaryDocument One = A, Two = A;
  Two.Functions[SampleUSR].KeepsNoHistoryIf = {"c:@F@other#"};
  SummaryDocument OT = One, TO = Two;
  OT.merge(Two);
  TO.merge(One);
  EXPECT_EQ(OT.toText(), TO.toText());
  EXPECT_EQ(OT.lookup(SampleUSR)->KeepsNoHistoryIf.size(), 2u);
}

// MemberAccumulations and MembersLeaving: torch-accumulated-history across
// files.
TEST(Link, MemberAccumulationsAreSummarisedAndLinked) {
  auto Def = parse(R"cpp(
struct Meter {
  void record(torch::Tensor loss);
  void observe(Net &m, torch::Tensor x);
  void record_detached(torch::Tensor loss);
  void loop(const std::vector<torch::Tensor> &xs);
  torch::Tensor total_, kept_, each_;
};
void Meter::record(torch::Tensor loss) { total_ += loss; }
void Meter::observe(Net &m, torch::Tensor x) { kept_.add_(m->forward(x).sum()); }
void Meter::record_detached(torch::Tensor loss) { total_ += loss.detach(); }
void Meter::loop(const std::vector<torch::Tensor> &xs) { for (const auto &x : xs) each_ += x; }
struct Kept {
  void add(torch::Tensor loss) { sum_ += loss; }
  torch::Tensor get() { return sum_; }
  void train(torch::Tensor loss) { (loss + acc_).backward(); }
  torch::Tensor sum_, acc_;
};
)cpp", "meter.cpp");
  SummaryDocument Doc = Def->document();
  auto Find = [&](llvm::StringRef Name) -> const FunctionSummary * {
    for (const auto &[USR, S] : Doc.Functions)
      if (S.Name == Name)
        return &S;
    ADD_FAILURE() << "no summary of " << Name.str();
    return nullptr;
  };
  const FunctionSummary *Record = Find("Meter::record"), *Observe = Find("Meter::observe");
  ASSERT_TRUE(Record && Observe);
  EXPECT_EQ(Record->MemberAccumulations, (std::vector<MemberAccumulation>{{"total_", 0}}));
  EXPECT_EQ(Observe->MemberAccumulations, (std::vector<MemberAccumulation>{{"kept_", -1}}));
  ASSERT_TRUE(Find("Meter::record_detached") && Find("Meter::loop") && Find("Kept::add"));
  EXPECT_TRUE(Find("Meter::record_detached")->MemberAccumulations.empty());
  EXPECT_TRUE(Find("Meter::loop")->MemberAccumulations.empty()); // the loop is its own
  EXPECT_TRUE(Find("Kept::add")->MemberAccumulations.empty());   // get() returns it
  ASSERT_TRUE(Find("Kept::get") && Find("Kept::train"));
  EXPECT_EQ(Find("Kept::get")->MembersLeaving, std::vector<std::string>{"sum_"});
  EXPECT_EQ(Find("Kept::train")->MembersLeaving, std::vector<std::string>{"acc_"});

  // Round trip, malformed fields, the union on linking (order-free).
  auto Back = parseSummaryDocument(Doc.toText());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->toText(), Doc.toText());
  for (llvm::StringRef Field : {R"("memberAccumulations": [{"member": "x", "param": -1}])",
                                R"("memberAccumulations": [{"param": 0}])",
                                R"("membersLeaving": [1])"}) {
    auto Bad = parseSummaryDocument(
        (R"({"version": 1, "functions": [{"usr": "x", "name": "x", "disablesGrad": false,
        "returnsHistory": false, "returnsHistoryFromArgs": false, "params": [], )" +
         Field + R"(}], "resultReachesBackward": []})")
            .str());
    EXPECT_FALSE(bool(Bad)) << Field.str();
    if (!Bad)
      EXPECT_NE(llvm::toString(Bad.takeError()).find("member"), std::string::npos);
  }
  SummaryDocument A, B;
  A.Functions["c:@F@m"] = summary("c:@F@m", NotReached, false, 1);
  B.Functions["c:@F@m"] = summary("c:@F@m", NotReached, false, 1);
  A.Functions["c:@F@m"].MemberAccumulations = {{"b_", 0}};
  B.Functions["c:@F@m"].MemberAccumulations = {{"a_", -1}, {"b_", 0}};
  B.Functions["c:@F@m"].MembersLeaving = {"c_"};
  SummaryDocument AB = A, BA = B;
  AB.merge(B);
  BA.merge(A);
  EXPECT_EQ(AB.toText(), BA.toText());
  EXPECT_EQ(AB.lookup("c:@F@m")->MemberAccumulations,
            (std::vector<MemberAccumulation>{{"a_", -1}, {"b_", 0}}));
  EXPECT_EQ(AB.lookup("c:@F@m")->MembersLeaving, std::vector<std::string>{"c_"});
  // A summary that holds only these facts is not empty: it changes the
  // findings of a unit that asked for it.
  SummaryDocument Unit;
  Unit.ReadsSummaries.insert("c:@F@m");
  EXPECT_TRUE(AB.changesAnalysisOf(Unit));
}

} // namespace
