//===--- AnalysisCore.cpp - libtorch-tidy ---------------------------------===//

#include "AnalysisCore.h"
#include "Escapes.h"
#include "FieldReads.h"
#include "FunctionDispatch.h"
#include "GradGuards.h"
#include "HistorySummary.h"
#include "LoopVariables.h"
#include "Matchers.h"
#include "Summaries.h"
#include "TorchNames.h"
#include "TorchMembers.h"
#include "TrainingLoop.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/FileSystem.h"
#include <mutex>

namespace clang::tidy::torch_check {

// ---- the context ------------------------------------------------------------

AnalysisCore::AnalysisCore() = default;
AnalysisCore::~AnalysisCore() = default;

void AnalysisCore::sync(ASTContext &Ctx) {
  if (!Stale && Current == &Ctx)
    return;
  Current = &Ctx;
  Stale = false;
  Facts.clear();
  Loops.clear();
  LinkedLoops.clear();
  HelperEvents = std::make_unique<HelperEventTable>();
  Summaries.reset();
  Escapes.reset();
  History.reset();
  Calls.reset();
  Fields.reset();
  Functions.clear();
  FunctionsListed = false;
}

const FunctionFacts &AnalysisCore::facts(const FunctionDecl *FD, ASTContext &Ctx) {
  sync(Ctx);
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def)
    Def = FD;
  std::unique_ptr<FunctionFacts> &Slot = Facts[Def];
  if (!Slot)
    Slot = std::make_unique<FunctionFacts>(Def, Ctx);
  return *Slot;
}

const TrainingLoopAnalysis &AnalysisCore::trainingLoops(const FunctionDecl *FD,
                                                        ASTContext &Ctx,
                                                        unsigned CallDepth, bool Linked) {
  sync(Ctx);
  // A body that calls no helper has one analysis for every depth.
  if (CallDepth > 0) {
    const TrainingLoopAnalysis &Local = trainingLoops(FD, Ctx, 0);
    if (Local.followsNoCall())
      return Local;
  }
  // The facts of the body and of each helper the analysis follows.
  auto FactsOf = factsLookup(Ctx);
  std::unique_ptr<TrainingLoopAnalysis> &Slot = Loops[{FD, CallDepth}];
  if (!Slot) {
    // Every training loop has an optimizer step: a body that calls nothing
    // named `step` (and, deeper, no helper) has none, and no check looks at
    // its other events.
    const FunctionFacts &F = facts(FD, Ctx);
    if (!F.callsNamed("step") && (CallDepth == 0 || !F.followsCalls()))
      Slot = TrainingLoopAnalysis::withoutSteps(FD->getBody(), Ctx, !F.followsCalls());
    else
      Slot = std::make_unique<TrainingLoopAnalysis>(F, FactsOf, *HelperEvents, Ctx, CallDepth);
  }
  // Without a linked file the answers are those of no summary: the same
  // analysis, built again only to record the questions when they are written.
  if (!Linked || !Slot->callsOtherUnits() || (!External && !writesSummaries()))
    return *Slot;
  std::unique_ptr<TrainingLoopAnalysis> &LinkedSlot = LinkedLoops[{FD, CallDepth}];
  if (!LinkedSlot)
    LinkedSlot = std::make_unique<TrainingLoopAnalysis>(
        facts(FD, Ctx), FactsOf, *HelperEvents, Ctx, CallDepth,
        [this](const FunctionDecl *Callee) { return externalSummary(Callee); });
  return *LinkedSlot;
}

llvm::ArrayRef<const FunctionDecl *> AnalysisCore::userFunctions(ASTContext &Ctx) {
  sync(Ctx);
  if (!FunctionsListed) {
    // One walk of the declarations outside system headers (Matchers.h).
    Functions.clear();
    forEachUserFunction(Ctx.getTranslationUnitDecl(), Ctx.getSourceManager(),
                        [&](const FunctionDecl *FD) { Functions.push_back(FD); });
    FunctionsListed = true;
  }
  return Functions;
}

FunctionDispatch &AnalysisCore::dispatch() {
  if (!Dispatch)
    Dispatch = std::make_unique<FunctionDispatch>(*this);
  return *Dispatch;
}

HistoryFunctions &AnalysisCore::history(ASTContext &Ctx) {
  sync(Ctx);
  if (!History) {
    // The history analyses read each body's facts: its walk's nodes and its
    // parent map.
    History = std::make_unique<HistoryFunctions>(factsLookup(Ctx));
  }
  return *History;
}

HistoryEscapes &AnalysisCore::escapes(ASTContext &Ctx) {
  HistoryFunctions &H = history(Ctx);
  if (!Escapes)
    Escapes = std::make_unique<HistoryEscapes>(
        H, [this](const FunctionDecl *FD) { return keepsNoHistoryElsewhere(FD); });
  return *Escapes;
}

// ---- history ----------------------------------------------------------------

const HistoryAnalysis &AnalysisCore::historyOf(const FunctionDecl *FD, ASTContext &Ctx,
                                               bool ParamsCarry) {
  return history(Ctx).analysis(FD, Ctx, ParamsCarry);
}

bool AnalysisCore::runsForwardAndBackward(const FunctionDecl *FD, ASTContext &Ctx) {
  const FunctionFacts &F = facts(FD, Ctx);
  return F.has(Fact::Forward) && (F.has(Fact::Backward) || F.has(Fact::Grad));
}

const CallGraph &AnalysisCore::calls(ASTContext &Ctx) {
  sync(Ctx);
  if (!Calls) {
    Calls = std::make_unique<CallGraph>(MaxSummaryDepth);
    for (const FunctionDecl *FD : userFunctions(Ctx))
      Calls->collect(facts(FD, Ctx), Ctx);
  }
  return *Calls;
}

const SummaryTable &AnalysisCore::summaries(ASTContext &Ctx) {
  sync(Ctx);
  if (!Summaries) {
    auto Table = std::make_unique<SummaryTable>();
    llvm::ArrayRef<const FunctionDecl *> All = userFunctions(Ctx);
    HistoryFunctions &H = history(Ctx);
    auto FactsOf = factsLookup(Ctx);
    Table->build(
        All, Ctx, FactsOf,
        [&](const FunctionDecl *FD, const FunctionFacts &F, FunctionSummary &S) {
          S.LoopEvents = helperLoopEvents(FD, Ctx, FactsOf, *HelperEvents);
          summariseHistory(FD, F, Ctx, H, S);
        },
        External.get());
    Summaries = std::move(Table);
  }
  return *Summaries;
}

// ---- across translation units ----------------------------------------------

/// The linked summaries files this process read, by path. Every clang-tidy
/// run has its own core (TorchTidyModule.cpp), and a long-lived process
/// (libtorch-tidy-clangd) runs the checks on every edit, so the file is read
/// once while it stays the same (modification time and size) and read again
/// when `libtorch-tidy summarize` or `--cross-tu` rewrites it. A file that
/// cannot be read or parsed gets its error once per version. Thread-safe:
/// clangd runs the checks of several files at once.
namespace {
class LinkedSummaryFiles {
public:
  /// Fills \p Out with the document at \p Path (a copy: each core keeps
  /// its own); returns the error to report, "" once reported.
  std::string load(llvm::StringRef Path, std::unique_ptr<SummaryDocument> &Out) {
    llvm::sys::fs::file_status Status;
    Stamp Now;
    if (!llvm::sys::fs::status(Path, Status))
      Now = {Status.getLastModificationTime(), Status.getSize(), true};
    std::lock_guard<std::mutex> Lock(Mutex);
    Entry &E = Files[Path];
    if (!E.Read || !(E.At == Now)) {
      E = Entry();
      E.Read = true;
      E.At = Now;
      llvm::Expected<SummaryDocument> Doc = readSummaryFile(Path);
      if (Doc)
        E.Doc = std::make_shared<const SummaryDocument>(std::move(*Doc));
      else
        E.Error = llvm::toString(Doc.takeError());
    }
    if (E.Doc)
      Out = std::make_unique<SummaryDocument>(*E.Doc);
    if (E.Error.empty() || E.Reported)
      return {};
    E.Reported = true;
    return E.Error;
  }

private:
  struct Stamp {
    llvm::sys::TimePoint<> Modified;
    uint64_t Size = 0;
    bool Exists = false;
    bool operator==(const Stamp &O) const {
      return Exists == O.Exists && Modified == O.Modified && Size == O.Size;
    }
  };
  struct Entry {
    bool Read = false;
    Stamp At;
    std::shared_ptr<const SummaryDocument> Doc;
    std::string Error;
    bool Reported = false;
  };
  std::mutex Mutex;
  llvm::StringMap<Entry> Files;
};
} // namespace

std::string AnalysisCore::configure(llvm::StringRef Input, llvm::StringRef Output) {
  OutputPath = Output.str();
  if (Input == InputPath)
    return {};
  InputPath = Input.str();
  External.reset();
  Summaries.reset(); // built with the previous file
  if (Input.empty())
    return {};
  static LinkedSummaryFiles *Files = new LinkedSummaryFiles; // never destroyed: no exit-time order
  std::string Error = Files->load(Input, External);
  if (!Error.empty())
    return "option TorchSummaries: " + Error + "; analysing without summaries of other files";
  return {};
}

std::string AnalysisCore::askElsewhere(const FunctionDecl *FD,
                                       std::set<std::string> &Asked) const {
  if (!FD)
    return {};
  if (const FunctionDecl *Def = FD->getDefinition(); Def && Def->hasBody())
    return {}; // defined here: its own body and summary decide
  std::string USR = usrOf(SummaryTable::key(FD));
  if (!USR.empty())
    Asked.insert(USR);
  return USR;
}

const FunctionSummary *AnalysisCore::externalSummary(const FunctionDecl *FD) const {
  std::string USR = askElsewhere(FD, ReadsSummaries);
  return !USR.empty() && External ? External->lookup(USR) : nullptr;
}

const FieldReads &AnalysisCore::fieldReads(ASTContext &Ctx) {
  sync(Ctx);
  if (!Fields)
    Fields = std::make_unique<FieldReads>(userFunctions(Ctx), factsLookup(Ctx), Ctx);
  return *Fields;
}

bool AnalysisCore::fieldReadOnlyDetached(const FieldDecl *F, ASTContext &Ctx,
                                         SourceLocation *FirstRead) {
  sync(Ctx);
  if (FirstRead)
    *FirstRead = SourceLocation();
  if (!F || !isTensorContainerField(F))
    return false;
  const FieldReads::Reads *Here = fieldReads(Ctx).of(F);
  if (Here && Here->Other)
    return false;
  if (Here && FirstRead)
    *FirstRead = Here->FirstDetached;
  if (External || writesSummaries()) {
    std::string USR = usrOf(F);
    if (!USR.empty())
      ReadsFields.insert(USR);
    if (External)
      return !USR.empty() && External->fieldReadOnlyDetached(USR);
  }
  // One file: a class no other file can name.
  const auto *Owner = dyn_cast<CXXRecordDecl>(F->getParent());
  const SourceManager &SM = Ctx.getSourceManager();
  return Here && Here->Detached > 0 && Owner &&
         SM.isInMainFile(SM.getExpansionLoc(Owner->getLocation()));
}

bool AnalysisCore::keepsNoHistoryElsewhere(const FunctionDecl *FD) const {
  if (!External && !writesSummaries())
    return false; // nothing to read, nothing to record
  std::string USR = askElsewhere(FD, ReadsKeeps);
  const FunctionSummary *S = !USR.empty() && External ? External->lookup(USR) : nullptr;
  return S && S->KeepsNoHistory;
}

std::string AnalysisCore::askCallers(const FunctionDecl *FD) const {
  std::string USR = FD ? usrOf(SummaryTable::key(FD)) : std::string();
  if (!USR.empty())
    ReadsCallers.insert(USR);
  return USR;
}

bool AnalysisCore::resultReachesBackwardElsewhere(const FunctionDecl *FD) const {
  std::string USR = askCallers(FD);
  if (!USR.empty() && External && External->resultReachesBackward(USR))
    return true;
  // A caller elsewhere may reach an override through the method it
  // overrides (`m_network->Predict(x)` on the abstract interface): what it
  // does with that call's result is done with this one's.
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return MD && llvm::any_of(MD->overridden_methods(), [&](const CXXMethodDecl *Base) {
           return resultReachesBackwardElsewhere(Base);
         });
}

bool AnalysisCore::calledOnlyUnderGuardsElsewhere(const FunctionDecl *FD) const {
  std::string USR = askCallers(FD);
  return !USR.empty() && External && External->calledOnlyUnderGuards(USR);
}

/// A function other translation units may call (so a guard of theirs may
/// cover it): externally visible, not main.
static bool calledFromOtherFiles(const FunctionDecl *FD) {
  return FD && FD->isExternallyVisible() && !FD->isMain();
}

/// The callers' side of the guard: the functions \p Doc's unit calls
/// without defining them, each guarded where every call of it is guarded at
/// the call or by every chain of callers above it (CallGraph's rule),
/// guarded "via" the entry points of the unit's unguarded chains when each
/// of those may be called from other files (the link decides), else
/// unguarded. Virtual dispatch and calls through pointers are not recorded.
static void recordCallGuards(const CallGraph &Graph, const ASTContext &Ctx,
                             SummaryDocument &Doc) {
  for (const CallGraph::Site &S : Graph.sites()) {
    if (S.Virtual)
      continue;
    const FunctionDecl *Ext = externalCallee(S.Call, Ctx);
    std::string USR = Ext ? usrOf(Ext) : std::string();
    if (USR.empty())
      continue;
    if (S.Guarded) {
      Doc.CalledGuarded.insert(USR);
      continue;
    }
    // One walk up the unit's chains: an entry point other files may call is
    // taken as guarded and listed; the link decides it.
    std::set<std::string> Entries;
    bool Guarded = Graph.guardedOnEveryPath(S.Caller, DefaultCallDepth, [&](const FunctionDecl *E) {
      if (!calledFromOtherFiles(E))
        return false;
      std::string EntryUSR = usrOf(SummaryTable::key(E));
      if (EntryUSR.empty())
        return false;
      Entries.insert(std::move(EntryUSR));
      return true;
    });
    if (!Guarded)
      Doc.CalledUnguarded.insert(USR);
    else if (Entries.empty())
      Doc.CalledGuarded.insert(USR); // guarded on every chain within the unit
    else
      Doc.CalledUnguardedVia[USR].insert(Entries.begin(), Entries.end());
  }
  for (const std::string &USR : Doc.CalledUnguarded) {
    Doc.CalledGuarded.erase(USR);
    Doc.CalledUnguardedVia.erase(USR);
  }
}

/// The functions other files may ask whether a call keeps nothing
/// (Escapes.h): those handed a value that may hold a tensor, as an argument
/// or as the object of a method whose class has a data member that may.
static bool askedWhetherItKeeps(const FunctionDecl *FD) {
  // A constructor keeps what it is given in its object: the question is
  // asked of one defined in the file only (keepsOnlyInObject).
  if (isa<CXXConstructorDecl>(FD))
    return false;
  if (llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) { return tensorish(P->getType()); }))
    return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD || MD->isStatic() || isa<CXXDestructorDecl>(MD))
    return false;
  return llvm::any_of(MD->getParent()->fields(),
                      [](const FieldDecl *F) { return tensorish(F->getType()); });
}

void AnalysisCore::recordKeepsNoHistory(ASTContext &Ctx, SummaryDocument &Doc) {
  // A template's instantiations share one summary: kept only when each says so.
  std::set<std::string> Seen;
  for (const FunctionDecl *FD : userFunctions(Ctx)) {
    if (!FD->hasBody() || FD->isDependentContext() || !askedWhetherItKeeps(FD))
      continue;
    std::string USR = usrOf(SummaryTable::key(FD));
    auto It = Doc.Functions.find(USR);
    if (It == Doc.Functions.end())
      continue;
    // The functions of other files it hands a value are taken to keep
    // nothing and listed: the link decides (SummaryDocument::composeKeeps),
    // so the fact crosses any number of files and does not depend on the
    // linked summaries this unit was given. A walk of its own per function:
    // what it relies on is its own list.
    std::set<std::string> Relies;
    HistoryEscapes Walk(history(Ctx), [&](const FunctionDecl *Callee) {
      std::string CalleeUSR = usrOf(SummaryTable::key(Callee));
      if (CalleeUSR.empty())
        return false;
      Relies.insert(std::move(CalleeUSR));
      return true;
    });
    bool Keeps = Walk.keepsNoHistory(FD, Ctx, DefaultCallDepth);
    FunctionSummary &S = It->second;
    if (Seen.insert(USR).second) { // the first instantiation decides alone
      S.KeepsNoHistory = true;
      S.KeepsNoHistoryIf.clear();
    }
    mergeKeepsNoHistory(S, Keeps, Relies);
  }
}

void AnalysisCore::recordFieldReads(ASTContext &Ctx, SummaryDocument &Doc) {
  for (const auto &[F, R] : fieldReads(Ctx).all()) {
    std::string USR = usrOf(F);
    if (USR.empty())
      continue;
    if (R.Other)
      Doc.FieldsReadOtherwise.insert(USR);
    else if (R.Detached > 0)
      Doc.FieldsReadDetached.insert(USR);
  }
}

std::string AnalysisCore::endTranslationUnit() {
  if (OutputPath.empty())
    return {};
  // Every check ends its part of the unit here: write once per change.
  auto State = std::make_tuple(!Stale && Current, ReadsSummaries.size(), ReadsCallers.size(),
                               ReadsKeeps.size(), ReadsFields.size());
  if (Written == State)
    return {};
  Written = State;
  SummaryDocument Doc;
  if (!Stale && Current) {
    Doc = summaries(*Current).document();
    recordKeepsNoHistory(*Current, Doc);
    recordFieldReads(*Current, Doc);
    // Only a unit that calls functions of other files has a callers' side
    // of the guard (the call graph is built for it then).
    if (!Doc.Uses.empty())
      recordCallGuards(calls(*Current), *Current, Doc);
  }
  Doc.ReadsSummaries = ReadsSummaries;
  Doc.ReadsCallers = ReadsCallers;
  Doc.ReadsKeeps = ReadsKeeps;
  Doc.ReadsFields = ReadsFields;
  if (llvm::Error E = writeSummaryFile(OutputPath, Doc))
    return "option TorchSummariesOutput: " + llvm::toString(std::move(E));
  return {};
}

} // namespace clang::tidy::torch_check
