//===--- SummaryModel.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// The serialised form of function summaries (Summaries.h), shared by the
// plugin, which writes and reads it, and the libtorch-tidy command, which
// links the summaries of a whole compile database. LLVM Support only: no
// clang header, so that the driver can compile it.
//
// Design:
//   - One document per translation unit and one for a linked project have the
//     same shape:
//       {"version": 1,
//        "functions": [FunctionSummary...],        sorted by USR, one per USR
//        "resultReachesBackward": [USR...],        sorted, unique
//        "uses": [USR...],                         a unit's only (optional)
//        "readsSummaries": [USR...],               a unit's only (optional)
//        "readsCallers": [USR...],                 a unit's only (optional)
//        "readsKeeps": [USR...],                   a unit's only (optional)
//        "calledGuarded": [USR...],                optional
//        "calledUnguarded": [USR...],              optional
//        "calledUnguardedVia": {USR: [USR...]},    a unit's only (optional)
//        "fieldsReadDetached": [USR...],           optional
//        "fieldsReadOtherwise": [USR...],          optional
//        "readsFields": [USR...]}                  a unit's only (optional)
//     A function's summary lists the functions of other units it calls
//     ("externalCalls"); linking composes their effects into it
//     (composeCalls), so chains of calls cross any number of files. A
//     unit's "keepsNoHistory" may hold only if the functions of other units
//     listed in "keepsNoHistoryIf" keep nothing too: linking decides it
//     (composeKeeps) and the linked document lists none.
//     "resultReachesBackward" is a fact of the callers' side: some function
//     feeds the result of a call of USR (a function defined elsewhere) into a
//     backward pass.
//   - "calledGuarded" and "calledUnguarded" are the callers' side of the
//     guard: a unit calls USR (a function it does not define) and every
//     such call holds a grad-mode guard on every path of the unit's calls
//     (calledGuarded), or one call may run with autograd on
//     (calledUnguarded). Linked, the union of each: every call
//     in the project is guarded when USR is in the first and not in the
//     second (a unit that does not compile adds nothing: unknown).
//     "calledUnguardedVia" is a unit's call of USR that holds no guard of
//     the unit's own, on chains of the unit's calls that start only at
//     functions other files may call (the entry points listed): the call
//     is guarded when each of those is, which only the link knows. Linking
//     decides it (composeCalls): USR is called only under guards when every
//     entry point listed for it is, over any number of files (a cycle of
//     such entry points is not guarded); the linked document holds the
//     decided sets and no "calledUnguardedVia".
//   - "readsSummaries" and "readsCallers" are what the checks asked of the
//     linked summaries while the unit was analysed (the USRs of functions
//     it calls without defining them; those whose callers' side it asked
//     about), whether a linked document was loaded or not. When every
//     answer the linked document gives to these questions is the answer of
//     no document (changesAnalysisOf is false), the unit's findings with the
//     linked summaries are its findings without: the checks take the same
//     branches and ask the same questions.
//   - Linking is a merge by USR. A function defined in several translation
//     units (inline, template) keeps, for each effect, the fewest levels of
//     calls any of them records and the union of the flags: "may do", the
//     same merge as a template's instantiations within one unit. The merge is
//     commutative and associative, so the linked document does not depend on
//     the order of the inputs.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYMODEL_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace clang::tidy::torch_check {

/// The deepest level of calls a summary records (checks ask for less).
inline constexpr unsigned MaxSummaryDepth = 8;
/// "Never, within MaxSummaryDepth levels."
inline constexpr unsigned NotReached = ~0u;
/// The version of the serialised form.
inline constexpr int64_t SummaryFormatVersion = 1;

/// What a function does with one of its parameters.
struct ParameterSummary {
  bool ReachesBackward = false; ///< its value flows into a backward pass
  bool WrittenInPlace = false;  ///< its storage is written (t.add_(x), t[0] = x)
  bool Inserted = false;        ///< it is inserted into a container
  bool Returned = false;        ///< it is returned
  friend bool operator==(const ParameterSummary &A, const ParameterSummary &B) {
    return A.ReachesBackward == B.ReachesBackward && A.WrittenInPlace == B.WrittenInPlace &&
           A.Inserted == B.Inserted && A.Returned == B.Returned;
  }
};

/// A data member of a method's class that the method accumulates a tensor
/// carrying autograd history into (`total_ += loss`, `total_.add_(x)`),
/// outside any loop of its own, with autograd on, while no method of the
/// class defined in the method's translation unit back-propagates or returns
/// the member (torch-accumulated-history across translation units).
struct MemberAccumulation {
  std::string Member; ///< the data member's name
  /// The parameter whose argument brings the history; -1: the method's own
  /// body computes it.
  int Param = -1;
  friend bool operator==(const MemberAccumulation &A, const MemberAccumulation &B) {
    return A.Member == B.Member && A.Param == B.Param;
  }
  friend bool operator<(const MemberAccumulation &A, const MemberAccumulation &B) {
    return std::tie(A.Member, A.Param) < std::tie(B.Member, B.Param);
  }
};

/// A call of a function defined in another translation unit, made by a
/// function or by the functions of its own unit it calls: the fewest levels
/// of calls to it (0: the function's own body calls it), and the fewest over
/// the paths on which no grad-mode guard covers the call.
struct ExternalCall {
  unsigned Level = NotReached;
  unsigned UnguardedLevel = NotReached;
  friend bool operator==(const ExternalCall &A, const ExternalCall &B) {
    return A.Level == B.Level && A.UnguardedLevel == B.UnguardedLevel;
  }
};

/// The summary of one function (or of every instantiation of a template).
struct FunctionSummary {
  std::string USR;
  std::string Name; ///< qualified name, for messages and debugging
  /// The fewest levels of calls to each effect (0: the function's own body;
  /// NotReached: never within MaxSummaryDepth). Effects inside lambdas of
  /// the body count only for the lambdas the body runs itself
  /// (FunctionFacts::runsLambda); the others run where they are called.
  unsigned Forward = NotReached;
  /// A forward pass that no grad-mode guard of the function's body (or of
  /// the bodies on the way to it) covers.
  unsigned UnguardedForward = NotReached;
  unsigned Backward = NotReached; ///< backward() or autograd::grad
  unsigned Step = NotReached;
  unsigned ZeroGrad = NotReached;
  unsigned Train = NotReached; ///< module.train()
  unsigned Eval = NotReached;  ///< module.eval()
  unsigned Sync = NotReached;
  /// A host synchronisation kept for a reporting habit (Syncs.h's
  /// habitualSync: item(), cpu(), to(kCPU), torch::cuda::synchronize(), its
  /// value deciding no exit, skip or training step) that runs on every call (runsOnEveryCall),
  /// in the body or through calls that themselves run on every call. A
  /// "must" effect: not composed through calls of other files' functions
  /// (their own level 0 is linked; deeper chains across files are not).
  unsigned SyncEveryCall = NotReached;
  bool DisablesGrad = false;   ///< its body holds a guard or set_enabled(false)
  bool ReturnsHistory = false; ///< its result carries history whatever its arguments
  bool ReturnsHistoryFromArgs = false; ///< ... when an argument does
  /// A call keeps no value with autograd history that the function is given
  /// (its parameters taken to carry history) or computes, but through its
  /// result: no write to members, globals, parameters' storage, no insert
  /// into a container it does not own, no lambda, no argument of a function
  /// that may keep it (Escapes.h's keepsNoHistory, CallDepth 3; a function of
  /// another file reads "keeps" while the summaries are written). Recorded
  /// for functions with a parameter that may hold a tensor. Information,
  /// not an effect: a merge keeps it only when every summary says it, and
  /// isEmpty ignores it (a unit that asked records it: ReadsKeeps).
  bool KeepsNoHistory = false;
  /// A unit's KeepsNoHistory that holds only when these functions of other
  /// files keep nothing too (the calls it hands a value with history, by
  /// USR): the link decides it (composeKeeps) and clears the list, so that
  /// "keeps nothing" crosses any number of files. A merge takes the union.
  std::set<std::string> KeepsNoHistoryIf;
  std::vector<ParameterSummary> Params;
  /// What a call of the function adds to the caller's training loop
  /// (TrainingLoop.h: its backward / step / zero_grad calls, in order, when
  /// they all run on its straight-line path). Entry I is what a caller that
  /// follows I + 1 levels of calls sees (the function's body followed I
  /// levels further); the last entry holds for every deeper caller. One
  /// letter per event (TrainingLoop.h's encodeHelperEvents): 'B' backward,
  /// 'G' autograd::grad, 'S' step, 'C' step with a closure not spelled at the
  /// call, 'Z' optimizer zero_grad, 'M' module zero_grad, 'X' manual zeroing;
  /// "O" alone: opaque (conditional events, or an optimizer handed on).
  /// Empty: no event at any depth.
  std::vector<std::string> LoopEvents;
  /// A method: the members of its class it accumulates history into
  /// (sorted, unique).
  std::vector<MemberAccumulation> MemberAccumulations;
  /// A method: the data members of its class (that may hold a tensor) whose
  /// value it passes into a backward pass or returns (sorted, unique).
  std::vector<std::string> MembersLeaving;
  /// The functions defined in other translation units that it calls, by USR
  /// (in its own unit: directly, in a lambda it runs itself, or through the
  /// unit's functions; not in other lambdas). Linking composes their summaries into
  /// this one (SummaryDocument::composeCalls), so that a chain of calls
  /// crosses any number of files. Not an effect: isEmpty ignores it.
  std::map<std::string, ExternalCall> ExternalCalls;

  /// LoopEvents for a caller following \p CallerDepth (> 0) levels; "" when
  /// none.
  llvm::StringRef loopEventsAt(unsigned CallerDepth) const {
    if (LoopEvents.empty() || CallerDepth == 0)
      return {};
    return LoopEvents[std::min<size_t>(CallerDepth - 1, LoopEvents.size() - 1)];
  }

  /// True when \p Level is within \p MaxDepth levels of calls (the one place
  /// the depth limit is applied).
  static bool reaches(unsigned Level, unsigned MaxDepth) {
    return Level != NotReached && Level <= MaxDepth;
  }
  /// The function trains: backward pass, step, or train() within \p MaxDepth.
  bool trains(unsigned MaxDepth) const {
    return reaches(Backward, MaxDepth) || reaches(Step, MaxDepth) || reaches(Train, MaxDepth);
  }
  /// Nothing reached, no flag: a check reads it as it reads no summary.
  bool isEmpty() const;
  friend bool operator==(const FunctionSummary &A, const FunctionSummary &B);
};

llvm::json::Value toJSON(const FunctionSummary &S);
bool fromJSON(const llvm::json::Value &V, FunctionSummary &S, llvm::json::Path P);

/// The canonical form of FunctionSummary::LoopEvents: no trailing entry
/// equal to the one before it, none at all when every entry is "".
void normaliseLoopEvents(std::vector<std::string> &Events);
/// MemberAccumulations and MembersLeaving sorted, without duplicates (the
/// form every summary keeps them in: written, read and merged).
void normaliseMemberLists(FunctionSummary &S);

/// Lowers \p Level to \p Candidate when that is fewer levels.
void lowerLevel(unsigned &Level, unsigned Candidate);
/// One more level of calls (NotReached beyond MaxSummaryDepth).
unsigned deeperLevel(unsigned Level);
/// What a call of a function summarised as \p Callee adds to \p S when \p S
/// reaches the call through \p Level levels of calls (0: its own body makes
/// it): each effect of \p Callee, Level + 1 levels deeper (NotReached beyond
/// MaxSummaryDepth); the unguarded forward pass only through \p
/// UnguardedLevel (NotReached: no path to the call is unguarded). True when
/// a level of \p S fell. Used within a unit for callees defined there or
/// linked, and by the link for chains over several units (composeCalls).
bool absorbCall(FunctionSummary &S, const FunctionSummary &Callee, unsigned Level,
                unsigned UnguardedLevel);
/// Merges a KeepsNoHistory fact into \p Into (information: kept only when
/// both say it; the conditions of both then hold, otherwise none).
void mergeKeepsNoHistory(FunctionSummary &Into, bool Keeps, const std::set<std::string> &If);
/// Merges \p From into \p Into ("may do": fewest levels, union of flags).
/// The name kept is the smaller one, so that the merge is order-free.
void mergeSummary(FunctionSummary &Into, const FunctionSummary &From);

/// The summaries of one translation unit or of a linked project.
struct SummaryDocument {
  std::map<std::string, FunctionSummary> Functions; ///< by USR
  std::set<std::string> ResultReachesBackward;      ///< USRs (callers' side)
  /// USRs (callers' side of the guard): called, every call guarded; called
  /// with a call that may run with autograd on.
  std::set<std::string> CalledGuarded, CalledUnguarded;
  /// A unit's document only (composeCalls decides it): USR -> the entry
  /// points of the unit (functions other files may call) at the top of the
  /// unit's chains of calls down to a call of USR that hold no guard; the
  /// call is guarded when each entry point is called only under guards.
  std::map<std::string, std::set<std::string>> CalledUnguardedVia;
  /// A unit's document only: the USRs of the functions it calls without
  /// defining them (what it reads from linked summaries). Not linked.
  std::set<std::string> Uses;
  /// A unit's document only: the USRs whose linked summary the checks asked
  /// for, and those whose callers' side they asked about (AnalysisCore).
  /// Not linked.
  std::set<std::string> ReadsSummaries, ReadsCallers;
  /// A unit's document only: the USRs whose KeepsNoHistory the checks asked
  /// for (Escapes.h). Not linked.
  std::set<std::string> ReadsKeeps;
  /// Data members of the user's classes that hold tensors in a container
  /// (FieldReads.h), by USR: read in some unit, every read detached
  /// (FieldsReadDetached); read otherwise in some unit (FieldsReadOtherwise).
  /// Linked: the union of each.
  std::set<std::string> FieldsReadDetached, FieldsReadOtherwise;
  /// A unit's document only: the members whose reads the checks asked about.
  /// Not linked.
  std::set<std::string> ReadsFields;

  /// Every read of the member \p USR in the linked units takes its tensors
  /// detached, and some unit reads it.
  bool fieldReadOnlyDetached(llvm::StringRef USR) const {
    return FieldsReadDetached.count(USR.str()) && !FieldsReadOtherwise.count(USR.str());
  }

  /// Merges \p Other in (linking; its Uses stay out).
  void merge(const SummaryDocument &Other);
  /// Linking, after every unit is merged: each function's effects reached
  /// through calls of functions defined in other units (ExternalCalls),
  /// composed until nothing changes: a forward pass, backward pass, step,
  /// zero_grad, train(), eval() or sync reached through a chain of calls
  /// over several files gets the fewest levels of any such chain (the depth
  /// limit of MaxSummaryDepth applies), and an unguarded forward pass only
  /// through calls no guard covers. A cycle of calls across files ends.
  /// The result does not depend on the order the units were merged in.
  /// Then the callers' side of the guard over chains of files: each
  /// CalledUnguardedVia entry becomes CalledGuarded when every entry point
  /// it lists is called only under guards (the least fixpoint: a cycle is
  /// not guarded), CalledUnguarded otherwise.
  void composeCalls();
  /// The part of composeCalls that decides conditional KeepsNoHistory (the
  /// greatest fixpoint: a function keeps nothing when every function it
  /// relies on is linked and keeps nothing; a cycle of them keeps nothing).
  void composeKeeps();
  /// The second part of composeCalls (the callers' guards), by itself.
  void composeGuards();
  /// What the analysis of \p Unit reads from this linked document: the
  /// summaries of the functions it uses or asked for (Uses, ReadsSummaries)
  /// and the callers' side of those it defines, as text (equal texts: equal
  /// findings). A cache key holds it.
  std::string dependencies(const SummaryDocument &Unit) const;
  /// True when this linked document can change the findings of the unit
  /// whose document is \p Unit: a summary the unit asked for is linked and
  /// not empty, or a function it asked about has a caller elsewhere that
  /// feeds its result into a backward pass, or is called elsewhere only
  /// under guards. False: the unit's findings
  /// without linked summaries are its findings with them.
  bool changesAnalysisOf(const SummaryDocument &Unit) const;
  const FunctionSummary *lookup(llvm::StringRef USR) const;
  bool resultReachesBackward(llvm::StringRef USR) const {
    return ResultReachesBackward.count(USR.str()) > 0;
  }
  /// True when USR is called in some unit that does not define it and every
  /// such call, in every such unit, holds a guard.
  bool calledOnlyUnderGuards(llvm::StringRef USR) const {
    return CalledGuarded.count(USR.str()) > 0 && CalledUnguarded.count(USR.str()) == 0;
  }
  llvm::json::Value toJSON() const;
  /// The document as text: stable (sorted keys and entries), one line per
  /// function.
  std::string toText() const;
};

/// Parses a document; the error is one line ("not JSON: ...", "expected ...").
llvm::Expected<SummaryDocument> parseSummaryDocument(llvm::StringRef Text);
/// Reads and parses \p Path; the error names the file.
llvm::Expected<SummaryDocument> readSummaryFile(llvm::StringRef Path);
/// Writes \p Doc to \p Path atomically (a temporary file renamed over it).
llvm::Error writeSummaryFile(llvm::StringRef Path, const SummaryDocument &Doc);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SUMMARYMODEL_H
