//===--- Instrument.cpp - libtorch-tidy -----------------------------------===//
//
// libtorch-tidy-instrument FILE --line N [--line N...] [-o OUT] [--report JSON]
//                           -- COMPILE ARGS
//
// Parses FILE with Clang and inserts a per-iteration probe statement at the
// start of the body of the innermost loop that holds each given line, plus the
// runtime's #include at the top of the file. The probe is given the tensors
// the loop carries across iterations (CarriedTensors), so that the runtime
// samples their autograd history. Writes the rewritten file to OUT
// (default: in place, atomically) and, with --report, a JSON list of the loops
// it instrumented. Exit codes: 0 done, 1 no loop holds any given line, 2 usage,
// parse or I/O errors.
//
//===----------------------------------------------------------------------===//

#include "AtomicWrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>

using namespace clang;
namespace cl = llvm::cl;

static cl::OptionCategory Category("libtorch-tidy-instrument options");
static cl::opt<std::string> InputFile(cl::Positional, cl::desc("<file>"), cl::Required,
                                      cl::cat(Category));
static cl::list<unsigned> Lines("line", cl::desc("a line inside a loop to instrument"),
                                cl::OneOrMore, cl::cat(Category));
static cl::opt<std::string> Output("o", cl::desc("output file (default: rewrite in place)"),
                                   cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string> Report("report", cl::desc("write the instrumented loops as JSON"),
                                   cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string>
    Statement("statement",
              cl::desc("the probe statement; {function}, {loop_line} and {label} are replaced "
                       "by the loop's function, first line and label (function:line), "
                       "{tensors} by ', a, b' for the tensors the loop carries"),
              cl::init("::libtorch_tidy::probe(\"{function}\", {loop_line}{tensors});"),
              cl::cat(Category));
static cl::opt<std::string> Include("include", cl::desc("the header the probe needs"),
                                    cl::init("libtorch_tidy/probe.h"), cl::cat(Category));

namespace {

struct LoopInfo {
  const Stmt *Loop;
  const Stmt *Body;
  unsigned BeginLine, EndLine;
  std::string Function;
};

class LoopCollector : public RecursiveASTVisitor<LoopCollector> {
public:
  LoopCollector(SourceManager &SM, std::vector<LoopInfo> &Loops) : SM(SM), Loops(Loops) {}

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    std::string Saved = Function;
    Function = FD->getNameAsString();
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Function = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *MD) {
    std::string Saved = Function;
    if (!MD->getParent()->isLambda())
      Function = MD->getParent()->getNameAsString() + "::" + MD->getNameAsString();
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(MD);
    Function = Saved;
    return R;
  }
  bool shouldVisitLambdaBody() const { return true; }

  bool VisitForStmt(ForStmt *S) { return add(S, S->getBody()); }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *S) { return add(S, S->getBody()); }
  bool VisitWhileStmt(WhileStmt *S) { return add(S, S->getBody()); }
  bool VisitDoStmt(DoStmt *S) { return add(S, S->getBody()); }

private:
  bool add(const Stmt *Loop, const Stmt *Body) {
    SourceLocation B = Loop->getBeginLoc(), E = Loop->getEndLoc();
    if (!Body || B.isMacroID() || E.isMacroID() || Body->getBeginLoc().isMacroID() ||
        !SM.isInMainFile(B))
      return true;
    Loops.push_back({Loop, Body, SM.getSpellingLineNumber(B), SM.getSpellingLineNumber(E),
                     Function});
    return true;
  }
  SourceManager &SM;
  std::vector<LoopInfo> &Loops;
  std::string Function;
};

/// Whether \p T is at::Tensor (torch::Tensor) or a standard sequence of them,
/// which the probe samples (libtorch_tidy/probe.h takes both).
bool isSampledType(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  auto IsTensor = [](const CXXRecordDecl *C) {
    return C && C->getName() == "Tensor" && C->getDeclContext()->isNamespace() &&
           cast<NamespaceDecl>(C->getDeclContext())->getName() == "at";
  };
  if (IsTensor(RD))
    return true;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || !Spec->isInStdNamespace() || Spec->getTemplateArgs().size() < 1 ||
      !llvm::is_contained({"vector", "deque", "list"}, Spec->getName()))
    return false;
  const TemplateArgument &Arg = Spec->getTemplateArgs()[0];
  return Arg.getKind() == TemplateArgument::Type &&
         IsTensor(Arg.getAsType().getCanonicalType()->getAsCXXRecordDecl());
}

/// The tensors a loop carries from one iteration to the next: local variables
/// and parameters of type Tensor (or a vector, deque or list of them) declared
/// before the loop and used in it, which the probe at the start of the body can
/// name (no declaration inside the loop shadows them, none is reached through
/// a lambda's capture). Sampling their autograd history per iteration is what
/// shows a graph kept across iterations (an accumulated loss, a container of
/// outputs, a recurrent state carried undetached).
class CarriedTensors : public RecursiveASTVisitor<CarriedTensors> {
public:
  CarriedTensors(const Stmt *Loop, const SourceManager &SM) : Loop(Loop), SM(SM) {}

  std::vector<std::string> names() {
    TraverseStmt(const_cast<Stmt *>(Loop));
    std::vector<std::string> Names;
    for (const VarDecl *VD : Used)
      if (!Declared.count(VD->getName()))
        Names.push_back(VD->getName().str());
    return Names;
  }

  bool shouldVisitLambdaBody() const { return false; }

  bool VisitVarDecl(VarDecl *VD) {
    Declared.insert(VD->getName());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD || DRE->refersToEnclosingVariableOrCapture() || !VD->isLocalVarDeclOrParm() ||
        VD->isStaticLocal() || !VD->getIdentifier() || VD->getType()->isDependentType() ||
        !SM.isBeforeInTranslationUnit(VD->getLocation(), Loop->getBeginLoc()) ||
        !isSampledType(VD->getType()) || llvm::is_contained(Used, VD))
      return true;
    Used.push_back(VD);
    return true;
  }

private:
  const Stmt *Loop;
  const SourceManager &SM;
  std::vector<const VarDecl *> Used;
  llvm::StringSet<> Declared;
};

struct Result {
  bool ParsedOK = false;
  bool HasMain = false;
  std::string Rewritten;
  llvm::json::Array Instrumented;
  std::vector<unsigned> Unmatched;
};

class InstrumentConsumer : public ASTConsumer {
public:
  InstrumentConsumer(CompilerInstance &CI, Result &R) : CI(CI), R(R) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (CI.getDiagnostics().hasErrorOccurred())
      return;
    SourceManager &SM = Ctx.getSourceManager();
    for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D))
        if (FD->isMain() && FD->hasBody() && SM.isInMainFile(FD->getLocation()))
          R.HasMain = true;
    std::vector<LoopInfo> Loops;
    LoopCollector(SM, Loops).TraverseDecl(Ctx.getTranslationUnitDecl());

    Rewriter RW(SM, Ctx.getLangOpts());
    std::map<const Stmt *, std::string> Chosen; // loop -> label
    for (unsigned Line : Lines) {
      const LoopInfo *Best = nullptr;
      for (const LoopInfo &L : Loops)
        if (L.BeginLine <= Line && Line <= L.EndLine &&
            (!Best || L.EndLine - L.BeginLine < Best->EndLine - Best->BeginLine))
          Best = &L;
      if (!Best) {
        R.Unmatched.push_back(Line);
        continue;
      }
      std::string Label = (Best->Function.empty() ? std::string("loop") : Best->Function) + ":" +
                          std::to_string(Best->BeginLine);
      const Stmt *Body = Best->Body;
      SourceLocation ProbeLoc =
          isa<CompoundStmt>(Body) ? cast<CompoundStmt>(Body)->getLBracLoc() : Body->getBeginLoc();
      Chosen.emplace(Best->Loop, Label);
      // One entry per line (several findings may share a loop), one probe per loop.
      R.Instrumented.push_back(llvm::json::Object{{"line", Line},
                                                  {"probe_line", SM.getSpellingLineNumber(ProbeLoc)},
                                                  {"loop_line", Best->BeginLine},
                                                  {"loop_end_line", Best->EndLine},
                                                  {"function", Best->Function},
                                                  {"label", Label}});
    }
    for (const auto &[Loop, Label] : Chosen) {
      const LoopInfo *Info = nullptr;
      for (const LoopInfo &L : Loops)
        if (L.Loop == Loop)
          Info = &L;
      const Stmt *Body = Info->Body;
      std::string Probe = Statement;
      auto Substitute = [&Probe](llvm::StringRef Key, const std::string &Value) {
        for (size_t Pos; (Pos = Probe.find(Key.str())) != std::string::npos;)
          Probe.replace(Pos, Key.size(), Value);
      };
      Substitute("{label}", Label);
      Substitute("{function}", Info->Function.empty() ? "loop" : Info->Function);
      Substitute("{loop_line}", std::to_string(Info->BeginLine));
      std::string Tensors;
      for (const std::string &Name : CarriedTensors(Loop, SM).names())
        Tensors += ", " + Name;
      Substitute("{tensors}", Tensors);
      if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
        RW.InsertTextAfterToken(CS->getLBracLoc(), " " + Probe);
      } else {
        SourceLocation End = Body->getEndLoc();
        SourceLocation After =
            Lexer::findLocationAfterToken(End, tok::semi, SM, Ctx.getLangOpts(), false);
        if (After.isInvalid())
          After = Lexer::getLocForEndOfToken(End, 0, SM, Ctx.getLangOpts());
        RW.InsertTextBefore(Body->getBeginLoc(), "{ " + Probe + " ");
        RW.InsertTextAfter(After, " }");
      }
    }
    if (!Chosen.empty())
      RW.InsertTextBefore(SM.getLocForStartOfFile(SM.getMainFileID()),
                          "#include <" + Include + ">\n#line 1\n");
    const auto *Buf = RW.getRewriteBufferFor(SM.getMainFileID());
    R.Rewritten = Buf ? std::string(Buf->begin(), Buf->end())
                      : SM.getBufferData(SM.getMainFileID()).str();
    R.ParsedOK = true;
  }

private:
  CompilerInstance &CI;
  Result &R;
};

class InstrumentAction : public ASTFrontendAction {
public:
  explicit InstrumentAction(Result &R) : R(R) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, StringRef) override {
    return std::make_unique<InstrumentConsumer>(CI, R);
  }

private:
  Result &R;
};

class ActionFactory : public tooling::FrontendActionFactory {
public:
  explicit ActionFactory(Result &R) : R(R) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<InstrumentAction>(R);
  }

private:
  Result &R;
};

int fail(const llvm::Twine &Message) {
  llvm::errs() << "libtorch-tidy-instrument: error: " << Message << "\n";
  return 2;
}

} // namespace

int main(int argc, const char **argv) {
  std::string ErrorMessage;
  std::unique_ptr<tooling::CompilationDatabase> DB =
      tooling::FixedCompilationDatabase::loadFromCommandLine(argc, argv, ErrorMessage);
  cl::HideUnrelatedOptions(Category);
  if (!cl::ParseCommandLineOptions(argc, argv, "Inserts per-iteration probes into loops\n"))
    return 2;
  if (!DB)
    DB = std::make_unique<tooling::FixedCompilationDatabase>(".", std::vector<std::string>{});
  if (!llvm::sys::fs::exists(InputFile))
    return fail("no such file: " + InputFile);

  Result R;
  tooling::ClangTool Tool(*DB, {InputFile});
  Tool.setPrintErrorMessage(false);
  ActionFactory Factory(R);
  int RC = Tool.run(&Factory);
  if (RC != 0 || !R.ParsedOK)
    return fail("'" + InputFile + "' does not compile with the given flags");

  if (!Report.empty()) {
    llvm::json::Array Unmatched;
    for (unsigned L : R.Unmatched)
      Unmatched.push_back(L);
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"has_main", R.HasMain},
                                     {"loops", std::move(R.Instrumented)},
                                     {"unmatched_lines", std::move(Unmatched)}}))
       << "\n";
    if (auto E = libtorch_tidy::writeFileAtomically(Report, OS.str()))
      return fail(llvm::toString(std::move(E)));
  }
  if (R.Unmatched.size() == Lines.size())
    return llvm::errs() << "libtorch-tidy-instrument: no loop holds the given lines\n", 1;
  std::string Out = Output.empty() ? std::string(InputFile) : std::string(Output);
  if (auto E = libtorch_tidy::writeFileAtomically(Out, R.Rewritten))
    return fail(llvm::toString(std::move(E)));
  return 0;
}
