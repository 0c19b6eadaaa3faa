//===--- UnsynchronizedTimingCheck.cpp - libtorch-tidy --------------------===//
//
// collect: the function's host clock readings (the core's ClockRead facts),
// paired into intervals by a subtraction `end - start` whose operands are
// readings or local variables whose every source is a reading; the CUDA
// work of the body (forward passes, losses, backward, autograd::grad,
// optimizer steps, calls of the user's functions whose summary runs one of
// them), its host synchronisations (the core's Sync facts, calls of the
// user's functions whose summary synchronises) and its evidence of a CUDA
// device (kCUDA, DeviceType::CUDA, a Device built from "cuda", `.cuda()`);
// decide: some path runs work after the start reading and reaches the end
// reading, no synchronisation may run between the two (a guarded one, `if
// (device.is_cuda()) torch::cuda::synchronize();`, counts), and CUDA
// evidence may run before the end reading (ExecutionOrder; evidence in one
// branch of a conditional counts unless RuntimeDevice is false);
// diagnose: the end reading, notes at the work and the evidence, and as a
// fix-it a synchronisation inserted before the statement of the end reading
// when that statement is a statement of a compound statement, holds none of
// the work and is not in a macro.
//
//===----------------------------------------------------------------------===//

#include "UnsynchronizedTimingCheck.h"
#include "utils/ASTHelpers.h"
#include "utils/Summaries.h"
#include "utils/TorchNames.h"
#include "utils/Traversal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include <optional>
#include <string>

namespace clang::tidy::torch_check {

namespace {

/// The bound of the loops below over chains of implicit nodes and parents;
/// a longer chain is left alone.
constexpr unsigned MaxChain = 64;

/// \p E without parentheses, implicit nodes, copies or moves and the left
/// operands of commas.
const Expr *stripToValue(const Expr *E) {
  using namespace wrappers;
  return stripWrappers(E, Temporaries | CopiesAndMoves | Commas);
}

/// The clock reading \p E is (through implicit nodes), outside lambdas.
const CallExpr *readingCall(const Expr *E, const FunctionFacts &Facts) {
  const auto *Call = dyn_cast_or_null<CallExpr>(stripToValue(E));
  const Fact *F = Call ? Facts.factFor(Call, Fact::ClockRead) : nullptr;
  return F && !F->InLambda ? Call : nullptr;
}

/// \p D is declared in namespace std or one nested in it (std::chrono).
bool isInStd(const Decl *D) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (DC->isStdNamespace())
      return true;
  return false;
}

/// \p E seen through the conversions of std::chrono that keep a reading's
/// moment: `time_point_cast<ms>(t)`, `t.time_since_epoch()`, `d.count()`,
/// `duration_cast<ms>(d)` (member calls and calls of std:: functions, on their
/// object or first argument).
const Expr *throughChronoConversions(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < MaxChain; ++Depth) {
    E = stripToValue(E);
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
    if (!FD || !FD->getIdentifier() || !isInStd(FD))
      return E;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      if (MC->getNumArgs() != 0)
        return E;
      E = MC->getImplicitObjectArgument();
    } else if (FD->getName().ends_with("_cast") && Call->getNumArgs() == 1) {
      E = Call->getArg(0);
    } else {
      return E;
    }
  }
  return E;
}

/// The readings whose value the operand \p E of a subtraction holds: \p E
/// itself, or every source of the local variable it names when each source
/// is a reading; through std::chrono's conversions, and one variable deeper
/// (`auto s = time_point_cast<ms>(start).time_since_epoch().count();`).
/// Empty otherwise.
llvm::SmallVector<const CallExpr *, 2> readingsOf(const Expr *E, const FunctionFacts &Facts) {
  llvm::SmallVector<const CallExpr *, 2> Out;
  for (unsigned Level = 0; Level < 2; ++Level) {
    E = throughChronoConversions(E);
    if (const CallExpr *Call = readingCall(E, Facts))
      return {Call};
    const VarDecl *VD = DefUse::variableNamed(E);
    if (!VD || !VD->hasLocalStorage() || Facts.defUse().isOtherwiseModified(VD))
      return {};
    // A declaration without an initialiser (`time_point t0, t1;`) brings no
    // value: its default construction is not a source.
    llvm::SmallVector<const Expr *, 2> Sources;
    for (const Expr *Source : Facts.defUse().sources(VD))
      if (const auto *CE = dyn_cast<CXXConstructExpr>(stripToValue(Source));
          !CE || CE->getNumArgs() != 0)
        Sources.push_back(Source);
    if (Sources.size() == 1 && !readingCall(throughChronoConversions(Sources[0]), Facts)) {
      E = Sources[0]; // a value derived from one reading's variable
      continue;
    }
    for (const Expr *Source : Sources) {
      const CallExpr *Call = readingCall(throughChronoConversions(Source), Facts);
      if (!Call)
        return {};
      Out.push_back(Call);
    }
    return Out;
  }
  return {};
}

/// The operands of a subtraction (`t1 - t0` on time points or clock_t).
std::optional<std::pair<const Expr *, const Expr *>> subtraction(const Stmt *S) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->getOpcode() == BO_Sub)
    return std::make_pair(BO->getLHS(), BO->getRHS());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->getOperator() == OO_Minus && Op->getNumArgs() == 2)
    return std::make_pair(Op->getArg(0), Op->getArg(1));
  return std::nullopt;
}

/// Evidence that the function runs on a CUDA device: `torch::kCUDA`,
/// `c10::DeviceType::CUDA` (not compared with: `d.type() == kCUDA` selects
/// nothing), a Device built from "cuda", `tensor.cuda()`.
bool isCUDAEvidence(const Stmt *S, const ParentMap &PM) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S)) {
    if (!isCUDADeviceExpr(DRE))
      return false;
    const Stmt *P = PM.getParentIgnoreParenImpCasts(const_cast<DeclRefExpr *>(DRE));
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P))
      return !BO->isEqualityOp();
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P))
      return Op->getOperator() != OO_EqualEqual && Op->getOperator() != OO_ExclaimEqual;
    return true;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(S))
    return CE->getNumArgs() >= 1 && isDeviceOrDeviceTypeType(CE->getType()) &&
           isCUDADeviceExpr(CE);
  const auto *MC = dyn_cast<CXXMemberCallExpr>(S);
  const CXXMethodDecl *MD = MC ? MC->getMethodDecl() : nullptr;
  return MD && MD->getIdentifier() && MD->getName() == "cuda" &&
         isTensorType(MC->getImplicitObjectArgument()->getType());
}

/// \p S runs in one branch of a conditional of the body: the device it names
/// is chosen at run time.
bool inConditionalBranch(const Stmt *S, const ParentMap &PM) {
  const Stmt *Child = S;
  for (unsigned Depth = 0; Depth < MaxChain; ++Depth) {
    const Stmt *P = PM.getParent(Child);
    if (!P)
      return false;
    if (const auto *CO = dyn_cast<AbstractConditionalOperator>(P);
        CO && (Child == CO->getTrueExpr() || Child == CO->getFalseExpr()))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(P); If && (Child == If->getThen() || Child == If->getElse()))
      return true;
    if (isa<SwitchCase>(P))
      return true;
    Child = P;
  }
  return false;
}

/// The evidence of a CUDA device that may run before \p End, unconditional
/// evidence first; \p RunTime says whether it is a run-time choice. Null when
/// none (run-time choices count only when \p AllowRunTime).
const Stmt *cudaEvidenceBefore(const Stmt *End, llvm::ArrayRef<std::pair<const Stmt *, bool>> Evidence,
                               const ExecutionOrder &Order, bool AllowRunTime, bool &RunTime) {
  const Stmt *Found = nullptr;
  for (const auto &[S, IsRunTime] : Evidence) {
    if ((IsRunTime && !AllowRunTime) || !Order.mayRunAfter(End, S))
      continue;
    if (!Found || (RunTime && !IsRunTime)) {
      Found = S;
      RunTime = IsRunTime;
    }
  }
  return Found;
}

/// The statement of a compound statement that holds \p S, or null.
const Stmt *enclosingStatement(const Stmt *S, const ParentMap &PM) {
  for (unsigned Depth = 0; S && Depth < MaxChain; ++Depth) {
    const Stmt *P = PM.getParent(S);
    if (isa_and_nonnull<CompoundStmt>(P))
      return S;
    S = P;
  }
  return nullptr;
}

/// Two readings paired by a subtraction.
struct Interval {
  llvm::SmallVector<const CallExpr *, 2> Starts, Ends;
};

/// The CUDA work and the host synchronisations of a body, outside lambdas.
struct Events {
  llvm::SmallVector<const Stmt *, 8> Work, Syncs;
};

Events collectEvents(const FunctionFacts &Facts, const SummaryTable &Summaries) {
  Events E;
  for (const Fact &F : Facts.all()) {
    if (F.InLambda)
      continue;
    switch (F.K) {
    case Fact::Forward:
    case Fact::Loss:
    case Fact::Backward:
    case Fact::Grad:
    case Fact::Step:
      E.Work.push_back(F.S);
      break;
    case Fact::Sync:
      E.Syncs.push_back(F.S);
      break;
    case Fact::UserCall:
      // A helper that synchronises counts as a synchronisation after its work.
      if (const FunctionSummary *S = Summaries.lookup(F.Callee)) {
        if (S->Sync != NotReached)
          E.Syncs.push_back(F.S);
        else if (S->Forward != NotReached || S->Backward != NotReached || S->Step != NotReached)
          E.Work.push_back(F.S);
      }
      break;
    default:
      break;
    }
  }
  return E;
}

/// The intervals of \p Body (subtractions of two readings) and its evidence
/// of a CUDA device, each with whether it is a run-time choice.
void collectIntervals(const Stmt *Body, const FunctionFacts &Facts,
                      llvm::SmallVectorImpl<Interval> &Intervals,
                      llvm::SmallVectorImpl<std::pair<const Stmt *, bool>> &Evidence) {
  const ParentMap &PM = Facts.parents();
  forEachStmt(Body, [&](const Stmt *S) {
    if (isCUDAEvidence(S, PM))
      Evidence.push_back({S, inConditionalBranch(S, PM)});
    if (auto Operands = subtraction(S)) {
      Interval I{readingsOf(Operands->second, Facts), readingsOf(Operands->first, Facts)};
      if (!I.Starts.empty() && !I.Ends.empty())
        Intervals.push_back(std::move(I));
    }
  });
}

/// The first work that some path runs after a start reading of \p I and
/// before \p End, with no synchronisation that may run between the two
/// (`if (device.is_cuda()) torch::cuda::synchronize();` is the correct idiom,
/// not a path without one). Null when none.
const Stmt *unsynchronisedWork(const Interval &I, const CallExpr *End, const Events &E,
                               const ExecutionOrder &Order) {
  llvm::SmallVector<const Stmt *, 2> Starts(I.Starts.begin(), I.Starts.end());
  llvm::SmallVector<const Stmt *, 2> Ends(I.Ends.begin(), I.Ends.end());
  auto Between = [&](const Stmt *From, const Stmt *To) {
    return Order.reachesAvoiding(From, To, Starts);
  };
  for (const Stmt *W : E.Work) {
    bool InRegion = llvm::any_of(
        I.Starts, [&](const CallExpr *Start) { return Order.reachesAvoiding(Start, W, Ends); });
    if (InRegion && Between(W, End) &&
        llvm::none_of(E.Syncs, [&](const Stmt *S) { return Between(W, S) && Between(S, End); }))
      return W;
  }
  return nullptr;
}

} // namespace

/// An end reading that follows unsynchronised CUDA work.
struct UnsynchronizedTimingCheck::Finding {
  const CallExpr *End = nullptr;
  const Stmt *Work = nullptr;     ///< the first unsynchronised work found
  const Stmt *Evidence = nullptr; ///< the CUDA device
  bool RunTime = false;           ///< the evidence is a run-time choice only
  /// The statement before which a synchronisation goes (null: no fix-it).
  const Stmt *Statement = nullptr;
};

UnsynchronizedTimingCheck::UnsynchronizedTimingCheck(StringRef Name, ClangTidyContext *Context,
                                                     std::shared_ptr<AnalysisCore> Core)
    : CoreCheck(Name, Context, std::move(Core)),
      RuntimeDevice(boolOption("RuntimeDevice", true)) {}

void UnsynchronizedTimingCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "RuntimeDevice", RuntimeDevice ? "true" : "false");
}

void UnsynchronizedTimingCheck::onStartOfTranslationUnit() {
  CoreCheck::onStartOfTranslationUnit();
  Reported.clear();
}

void UnsynchronizedTimingCheck::checkFunction(const FunctionDecl *FD, const Stmt *Body,
                                              ASTContext &Ctx) {
  const FunctionFacts &Facts = core().facts(FD, Ctx);
  if (Facts.of(Fact::ClockRead).size() < 2)
    return;
  // Collect.
  Events E = collectEvents(Facts, core().summaries(Ctx));
  if (E.Work.empty())
    return;
  llvm::SmallVector<Interval, 2> Intervals;
  llvm::SmallVector<std::pair<const Stmt *, bool>, 4> Evidence;
  collectIntervals(Body, Facts, Intervals, Evidence);
  if (Evidence.empty())
    return;
  // Decide, diagnose.
  const ExecutionOrder &Order = Facts.order();
  const ParentMap &PM = Facts.parents();
  for (const Interval &I : Intervals) {
    for (const CallExpr *End : I.Ends) {
      Finding F;
      F.End = End;
      F.Evidence = cudaEvidenceBefore(End, Evidence, Order, RuntimeDevice, F.RunTime);
      F.Work = F.Evidence ? unsynchronisedWork(I, End, E, Order) : nullptr;
      if (!F.Work || !Reported.insert(End->getExprLoc()).second)
        continue;
      F.Statement = enclosingStatement(End, PM);
      if (F.Statement &&
          llvm::any_of(E.Work, [&](const Stmt *W) { return isDescendant(W, F.Statement, PM); }))
        F.Statement = nullptr;
      diagnose(F, Ctx);
    }
  }
}

void UnsynchronizedTimingCheck::diagnose(const Finding &F, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = F.Statement ? F.Statement->getBeginLoc() : SourceLocation();
  bool Fixable = At.isValid() && At.isFileID() && F.End->getBeginLoc().isFileID();
  {
    auto D = diag(F.End->getBeginLoc(),
                  "clock read after CUDA work with no synchronisation: kernels run asynchronously, "
                  "so the interval measures their launches, not the work; call "
                  "torch::cuda::synchronize() before reading the clock");
    if (Fixable) {
      // torch::cuda::synchronize() throws without a GPU: guarded where the
      // device is chosen at run time.
      std::string Indent = indentationAt(At, SM);
      D << FixItHint::CreateInsertion(
          At, (F.RunTime ? "if (torch::cuda::is_available())\n" + Indent + "  " : std::string()) +
                  "torch::cuda::synchronize();\n" + Indent);
    }
  }
  diag(F.Work->getBeginLoc(), "CUDA work that the interval does not wait for", DiagnosticIDs::Note);
  diag(F.Evidence->getBeginLoc(),
       F.RunTime ? "the device is CUDA when one is available" : "the device is CUDA",
       DiagnosticIDs::Note);
  if (!Fixable)
    diag(F.End->getBeginLoc(),
         "no fix-it: the clock reading is in a macro, is not in a statement of its own block, or "
         "shares its statement with the work",
         DiagnosticIDs::Note);
}

} // namespace clang::tidy::torch_check
