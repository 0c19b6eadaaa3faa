//===--- SummaryModel.cpp - libtorch-tidy ---------------------------------===//

#include "SummaryModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace clang::tidy::torch_check {

bool operator==(const FunctionSummary &A, const FunctionSummary &B) {
  return A.USR == B.USR && A.Name == B.Name && A.Forward == B.Forward &&
         A.UnguardedForward == B.UnguardedForward && A.Backward == B.Backward &&
         A.Step == B.Step && A.ZeroGrad == B.ZeroGrad && A.Train == B.Train &&
         A.Eval == B.Eval && A.Sync == B.Sync && A.SyncEveryCall == B.SyncEveryCall && A.DisablesGrad == B.DisablesGrad &&
         A.ReturnsHistory == B.ReturnsHistory &&
         A.ReturnsHistoryFromArgs == B.ReturnsHistoryFromArgs &&
         A.KeepsNoHistory == B.KeepsNoHistory &&
         A.KeepsNoHistoryIf == B.KeepsNoHistoryIf && A.Params == B.Params &&
         A.LoopEvents == B.LoopEvents && A.MemberAccumulations == B.MemberAccumulations &&
         A.MembersLeaving == B.MembersLeaving && A.ExternalCalls == B.ExternalCalls;
}

bool FunctionSummary::isEmpty() const {
  FunctionSummary None;
  None.USR = USR;
  None.Name = Name;
  None.Params.resize(Params.size());
  None.ExternalCalls = ExternalCalls; // calls are not effects
  None.KeepsNoHistory = KeepsNoHistory; // information asked on its own (ReadsKeeps)
  None.KeepsNoHistoryIf = KeepsNoHistoryIf;
  return *this == None;
}

static llvm::json::Value levelToJSON(unsigned L) {
  return L == NotReached ? llvm::json::Value(nullptr) : llvm::json::Value(int64_t(L));
}

static bool levelFromJSON(const llvm::json::Object &O, llvm::StringRef Key, unsigned &L) {
  const llvm::json::Value *V = O.get(Key);
  if (!V || V->getAsNull()) {
    L = NotReached;
    return true;
  }
  std::optional<int64_t> I = V->getAsInteger();
  if (!I || *I < 0 || *I > int64_t(MaxSummaryDepth))
    return false;
  L = unsigned(*I);
  return true;
}

llvm::json::Value toJSON(const FunctionSummary &S) {
  llvm::json::Array Params;
  for (const ParameterSummary &P : S.Params)
    Params.push_back(llvm::json::Object{{"reachesBackward", P.ReachesBackward},
                                        {"writtenInPlace", P.WrittenInPlace},
                                        {"inserted", P.Inserted},
                                        {"returned", P.Returned}});
  llvm::json::Object O{{"usr", S.USR},
                       {"name", S.Name},
                       {"forward", levelToJSON(S.Forward)},
                       {"unguardedForward", levelToJSON(S.UnguardedForward)},
                       {"backward", levelToJSON(S.Backward)},
                       {"step", levelToJSON(S.Step)},
                       {"zeroGrad", levelToJSON(S.ZeroGrad)},
                       {"train", levelToJSON(S.Train)},
                       {"eval", levelToJSON(S.Eval)},
                       {"sync", levelToJSON(S.Sync)},
                       {"syncEveryCall", levelToJSON(S.SyncEveryCall)},
                       {"disablesGrad", S.DisablesGrad},
                       {"returnsHistory", S.ReturnsHistory},
                       {"returnsHistoryFromArgs", S.ReturnsHistoryFromArgs},
                       {"params", std::move(Params)}};
  if (S.KeepsNoHistory)
    O["keepsNoHistory"] = true;
  if (S.KeepsNoHistory && !S.KeepsNoHistoryIf.empty()) {
    llvm::json::Array If;
    for (const std::string &USR : S.KeepsNoHistoryIf)
      If.push_back(USR);
    O["keepsNoHistoryIf"] = std::move(If);
  }
  if (!S.LoopEvents.empty()) {
    llvm::json::Array Events;
    for (const std::string &E : S.LoopEvents)
      Events.push_back(E);
    O["loopEvents"] = std::move(Events);
  }
  if (!S.MemberAccumulations.empty()) {
    llvm::json::Array Acc;
    for (const MemberAccumulation &M : S.MemberAccumulations)
      Acc.push_back(llvm::json::Object{
          {"member", M.Member},
          {"param", M.Param < 0 ? llvm::json::Value(nullptr) : llvm::json::Value(M.Param)}});
    O["memberAccumulations"] = std::move(Acc);
  }
  if (!S.MembersLeaving.empty()) {
    llvm::json::Array Leaving;
    for (const std::string &M : S.MembersLeaving)
      Leaving.push_back(M);
    O["membersLeaving"] = std::move(Leaving);
  }
  if (!S.ExternalCalls.empty()) {
    llvm::json::Array Calls;
    for (const auto &[USR, C] : S.ExternalCalls)
      Calls.push_back(llvm::json::Object{{"usr", USR},
                                         {"level", levelToJSON(C.Level)},
                                         {"unguardedLevel", levelToJSON(C.UnguardedLevel)}});
    O["externalCalls"] = std::move(Calls);
  }
  return O;
}

/// The array of strings \p Key of \p O, appended to \p Out; true when absent.
static bool stringsFromJSON(const llvm::json::Object &O, llvm::StringRef Key,
                            std::vector<std::string> &Out, llvm::json::Path P) {
  const llvm::json::Value *V = O.get(Key);
  if (!V)
    return true;
  if (const llvm::json::Array *A = V->getAsArray())
    if (llvm::all_of(*A, [](const llvm::json::Value &E) { return E.getAsString().has_value(); })) {
      for (const llvm::json::Value &E : *A)
        Out.push_back(E.getAsString()->str());
      return true;
    }
  P.field(Key).report("expected an array of strings");
  return false;
}

/// The array of objects \p Key of \p O (absent: none), each given to
/// \p Each; \p Expected is the error when it is not an array of objects
/// \p Each accepts.
static bool objectsFromJSON(const llvm::json::Object &O, llvm::StringRef Key,
                            llvm::StringLiteral Expected, llvm::json::Path P,
                            llvm::function_ref<bool(const llvm::json::Object &)> Each) {
  const llvm::json::Value *V = O.get(Key);
  if (!V)
    return true;
  const llvm::json::Array *A = V->getAsArray();
  if (!A) {
    P.field(Key).report("expected an array");
    return false;
  }
  for (const llvm::json::Value &E : *A) {
    const llvm::json::Object *EO = E.getAsObject();
    if (!EO || !Each(*EO)) {
      P.field(Key).report(Expected);
      return false;
    }
  }
  return true;
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary &S, llvm::json::Path P) {
  const llvm::json::Object *O = V.getAsObject();
  if (!O) {
    P.report("expected an object");
    return false;
  }
  llvm::json::ObjectMapper M(V, P);
  if (!M || !M.map("usr", S.USR) || !M.map("name", S.Name) ||
      !M.map("disablesGrad", S.DisablesGrad) || !M.map("returnsHistory", S.ReturnsHistory) ||
      !M.map("returnsHistoryFromArgs", S.ReturnsHistoryFromArgs) ||
      !M.mapOptional("keepsNoHistory", S.KeepsNoHistory))
    return false;
  if (const llvm::json::Value *If = O->get("keepsNoHistoryIf")) {
    const llvm::json::Array *A = If->getAsArray();
    if (!A) {
      P.field("keepsNoHistoryIf").report("expected an array of strings");
      return false;
    }
    for (const llvm::json::Value &U : *A) {
      std::optional<llvm::StringRef> USR = U.getAsString();
      if (!USR) {
        P.field("keepsNoHistoryIf").report("expected an array of strings");
        return false;
      }
      S.KeepsNoHistoryIf.insert(USR->str());
    }
  }
  struct {
    llvm::StringRef Key;
    unsigned &Level;
  } Levels[] = {{"forward", S.Forward}, {"unguardedForward", S.UnguardedForward},
                {"backward", S.Backward}, {"step", S.Step},
                {"zeroGrad", S.ZeroGrad}, {"train", S.Train},
                {"eval", S.Eval},         {"sync", S.Sync},
                {"syncEveryCall", S.SyncEveryCall}};
  for (auto &L : Levels)
    if (!levelFromJSON(*O, L.Key, L.Level)) {
      P.field(L.Key).report("expected null or a call depth");
      return false;
    }
  S.Params.clear();
  const llvm::json::Array *Params = O->getArray("params");
  if (!Params) {
    P.field("params").report("expected an array");
    return false;
  }
  for (const llvm::json::Value &PV : *Params) {
    ParameterSummary PS;
    llvm::json::ObjectMapper PM(PV, P.field("params"));
    if (!PM || !PM.map("reachesBackward", PS.ReachesBackward) ||
        !PM.map("writtenInPlace", PS.WrittenInPlace) || !PM.map("inserted", PS.Inserted) ||
        !PM.map("returned", PS.Returned))
      return false;
    S.Params.push_back(PS);
  }
  S.LoopEvents.clear();
  if (!stringsFromJSON(*O, "loopEvents", S.LoopEvents, P))
    return false;
  normaliseLoopEvents(S.LoopEvents);
  S.MemberAccumulations.clear();
  if (!objectsFromJSON(*O, "memberAccumulations",
                       "expected {\"member\": a name, \"param\": null or an index}", P,
                       [&](const llvm::json::Object &EO) {
                         std::optional<llvm::StringRef> Member = EO.getString("member");
                         const llvm::json::Value *Param = EO.get("param");
                         std::optional<int64_t> Index =
                             Param ? Param->getAsInteger() : std::nullopt;
                         if (!Member || !Param || (!Param->getAsNull() && (!Index || *Index < 0)))
                           return false;
                         S.MemberAccumulations.push_back({Member->str(), Index ? int(*Index) : -1});
                         return true;
                       }))
    return false;
  S.MembersLeaving.clear();
  if (!stringsFromJSON(*O, "membersLeaving", S.MembersLeaving, P))
    return false;
  normaliseMemberLists(S);
  S.ExternalCalls.clear();
  return objectsFromJSON(*O, "externalCalls",
                         "expected {\"usr\": a USR, \"level\": a call depth, "
                         "\"unguardedLevel\": null or a call depth}",
                         P, [&](const llvm::json::Object &EO) {
                           std::optional<llvm::StringRef> USR = EO.getString("usr");
                           ExternalCall C;
                           if (!USR || USR->empty() || !levelFromJSON(EO, "level", C.Level) ||
                               !levelFromJSON(EO, "unguardedLevel", C.UnguardedLevel))
                             return false;
                           if (C.Level != NotReached)
                             S.ExternalCalls[USR->str()] = C;
                           return true;
                         });
}

/// Sorts \p V and drops its duplicates.
template <typename T> static void sortUnique(std::vector<T> &V) {
  llvm::sort(V);
  V.erase(std::unique(V.begin(), V.end()), V.end());
}

void normaliseMemberLists(FunctionSummary &S) {
  sortUnique(S.MemberAccumulations);
  sortUnique(S.MembersLeaving);
}

void normaliseLoopEvents(std::vector<std::string> &Events) {
  while (Events.size() > 1 && Events.back() == Events[Events.size() - 2])
    Events.pop_back();
  if (llvm::all_of(Events, [](const std::string &E) { return E.empty(); }))
    Events.clear();
}

/// Merges the loop events of two definitions of one function: equal entries
/// stay, different ones become "O" (which runs is unknown: opaque).
static void mergeLoopEvents(std::vector<std::string> &Into, const std::vector<std::string> &From) {
  if (Into == From)
    return;
  size_t N = std::max(Into.size(), From.size());
  auto At = [](const std::vector<std::string> &V, size_t I) -> std::string {
    return V.empty() ? std::string() : V[std::min(I, V.size() - 1)];
  };
  std::vector<std::string> Merged;
  for (size_t I = 0; I < N; ++I) {
    std::string A = At(Into, I), B = At(From, I);
    Merged.push_back(A == B ? A : "O");
  }
  normaliseLoopEvents(Merged);
  Into = std::move(Merged);
}

void lowerLevel(unsigned &Level, unsigned Candidate) {
  if (Candidate != NotReached && Candidate < Level)
    Level = Candidate;
}

unsigned deeperLevel(unsigned Level) {
  return Level == NotReached || Level + 1 > MaxSummaryDepth ? NotReached : Level + 1;
}

void mergeKeepsNoHistory(FunctionSummary &Into, bool Keeps, const std::set<std::string> &If) {
  Into.KeepsNoHistory = Into.KeepsNoHistory && Keeps;
  if (Into.KeepsNoHistory)
    Into.KeepsNoHistoryIf.insert(If.begin(), If.end());
  else
    Into.KeepsNoHistoryIf.clear();
}

void mergeSummary(FunctionSummary &Into, const FunctionSummary &From) {
  if (!From.Name.empty() && (Into.Name.empty() || From.Name < Into.Name))
    Into.Name = From.Name;
  lowerLevel(Into.Forward, From.Forward);
  lowerLevel(Into.UnguardedForward, From.UnguardedForward);
  lowerLevel(Into.Backward, From.Backward);
  lowerLevel(Into.Step, From.Step);
  lowerLevel(Into.ZeroGrad, From.ZeroGrad);
  lowerLevel(Into.Train, From.Train);
  lowerLevel(Into.Eval, From.Eval);
  lowerLevel(Into.Sync, From.Sync);
  lowerLevel(Into.SyncEveryCall, From.SyncEveryCall);
  Into.DisablesGrad |= From.DisablesGrad;
  Into.ReturnsHistory |= From.ReturnsHistory;
  Into.ReturnsHistoryFromArgs |= From.ReturnsHistoryFromArgs;
  // Information ("keeps nothing"): only when both say it.
  mergeKeepsNoHistory(Into, From.KeepsNoHistory, From.KeepsNoHistoryIf);
  if (Into.Params.size() < From.Params.size())
    Into.Params.resize(From.Params.size());
  for (size_t I = 0; I < From.Params.size(); ++I) {
    Into.Params[I].ReachesBackward |= From.Params[I].ReachesBackward;
    Into.Params[I].WrittenInPlace |= From.Params[I].WrittenInPlace;
    Into.Params[I].Inserted |= From.Params[I].Inserted;
    Into.Params[I].Returned |= From.Params[I].Returned;
  }
  mergeLoopEvents(Into.LoopEvents, From.LoopEvents);
  // "May do": the union.
  llvm::append_range(Into.MemberAccumulations, From.MemberAccumulations);
  llvm::append_range(Into.MembersLeaving, From.MembersLeaving);
  normaliseMemberLists(Into);
  for (const auto &[USR, C] : From.ExternalCalls) {
    ExternalCall &Call = Into.ExternalCalls[USR];
    lowerLevel(Call.Level, C.Level);
    lowerLevel(Call.UnguardedLevel, C.UnguardedLevel);
  }
}

/// \p Level levels of calls to a call of a function whose own level for an
/// effect is \p CalleeLevel: the caller's level for it (NotReached beyond
/// MaxSummaryDepth).
static unsigned throughCall(unsigned Level, unsigned CalleeLevel) {
  if (Level == NotReached || CalleeLevel == NotReached ||
      Level + 1 + CalleeLevel > MaxSummaryDepth)
    return NotReached;
  return Level + 1 + CalleeLevel;
}

bool absorbCall(FunctionSummary &S, const FunctionSummary &Callee, unsigned Level,
                unsigned UnguardedLevel) {
  bool Fell = false;
  auto Lower = [&](unsigned &Mine, unsigned Theirs, unsigned Through) {
    unsigned Before = Mine;
    lowerLevel(Mine, throughCall(Through, Theirs));
    Fell |= Mine != Before;
  };
  Lower(S.UnguardedForward, Callee.UnguardedForward, UnguardedLevel);
  Lower(S.Forward, Callee.Forward, Level);
  Lower(S.Backward, Callee.Backward, Level);
  Lower(S.Step, Callee.Step, Level);
  Lower(S.ZeroGrad, Callee.ZeroGrad, Level);
  Lower(S.Train, Callee.Train, Level);
  Lower(S.Eval, Callee.Eval, Level);
  Lower(S.Sync, Callee.Sync, Level);
  return Fell;
}

// ---- documents --------------------------------------------------------------

void SummaryDocument::merge(const SummaryDocument &Other) {
  for (const auto &[USR, S] : Other.Functions) {
    auto [It, Inserted] = Functions.try_emplace(USR, S);
    if (!Inserted)
      mergeSummary(It->second, S);
  }
  ResultReachesBackward.insert(Other.ResultReachesBackward.begin(),
                               Other.ResultReachesBackward.end());
  CalledGuarded.insert(Other.CalledGuarded.begin(), Other.CalledGuarded.end());
  FieldsReadDetached.insert(Other.FieldsReadDetached.begin(), Other.FieldsReadDetached.end());
  FieldsReadOtherwise.insert(Other.FieldsReadOtherwise.begin(), Other.FieldsReadOtherwise.end());
  CalledUnguarded.insert(Other.CalledUnguarded.begin(), Other.CalledUnguarded.end());
  for (const auto &[USR, Entries] : Other.CalledUnguardedVia)
    CalledUnguardedVia[USR].insert(Entries.begin(), Entries.end());
}

void SummaryDocument::composeCalls() {
  // Levels only fall and are bounded: the least fixpoint, whatever the order.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[USR, S] : Functions) {
      for (const auto &[CalleeUSR, Call] : S.ExternalCalls) {
        if (CalleeUSR == USR)
          continue;
        auto It = Functions.find(CalleeUSR);
        if (It == Functions.end())
          continue;
        Changed |= absorbCall(S, It->second, Call.Level, Call.UnguardedLevel);
      }
    }
  }
  composeKeeps();
  composeGuards();
}

void SummaryDocument::composeKeeps() {
  // Start from what each unit says and withdraw "keeps nothing" from every
  // function that relies on one that keeps, or that no unit linked.
  auto Keeps = [&](const std::string &USR) {
    auto It = Functions.find(USR);
    return It != Functions.end() && It->second.KeepsNoHistory;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &[USR, S] : Functions)
      if (S.KeepsNoHistory && !llvm::all_of(S.KeepsNoHistoryIf, Keeps)) {
        S.KeepsNoHistory = false;
        Changed = true;
      }
  }
  for (auto &[USR, S] : Functions)
    S.KeepsNoHistoryIf.clear();
}

void SummaryDocument::composeGuards() {
  if (CalledUnguardedVia.empty())
    return;
  // The least fixpoint: a function is called only under guards when none
  // of its calls is unguarded and every entry point above its calls without
  // a guard of their own is (none listed: guarded at every call).
  std::set<std::string> Candidates = CalledGuarded;
  for (const auto &[USR, Entries] : CalledUnguardedVia)
    Candidates.insert(USR);
  for (const std::string &USR : CalledUnguarded)
    Candidates.erase(USR);
  std::set<std::string> Guarded;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const std::string &USR : Candidates) {
      if (Guarded.count(USR))
        continue;
      auto It = CalledUnguardedVia.find(USR);
      if (It == CalledUnguardedVia.end() ||
          llvm::all_of(It->second, [&](const std::string &E) { return Guarded.count(E) > 0; })) {
        Guarded.insert(USR);
        Changed = true;
      }
    }
  }
  for (const auto &[USR, Entries] : CalledUnguardedVia)
    (Guarded.count(USR) ? CalledGuarded : CalledUnguarded).insert(USR);
  for (const std::string &USR : CalledUnguarded)
    CalledGuarded.erase(USR);
  CalledUnguardedVia.clear();
}

std::string SummaryDocument::dependencies(const SummaryDocument &Unit) const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  // What it calls, and what its checks asked for besides (the other methods
  // of a class whose method it calls: torch-accumulated-history).
  std::set<std::string> Read = Unit.Uses;
  Read.insert(Unit.ReadsSummaries.begin(), Unit.ReadsSummaries.end());
  Read.insert(Unit.ReadsKeeps.begin(), Unit.ReadsKeeps.end());
  for (const std::string &USR : Read) {
    OS << "uses " << USR << ": ";
    if (const FunctionSummary *S = lookup(USR))
      OS << torch_check::toJSON(*S);
    OS << "\n";
  }
  for (const auto &[USR, S] : Unit.Functions)
    if (resultReachesBackward(USR))
      OS << "result reaches backward: " << USR << "\n";
  std::set<std::string> Asked = Unit.ReadsCallers;
  for (const auto &[USR, S] : Unit.Functions)
    Asked.insert(USR);
  for (const std::string &USR : Asked)
    if (calledOnlyUnderGuards(USR))
      OS << "called only under guards: " << USR << "\n";
  for (const std::string &USR : Unit.ReadsFields)
    if (fieldReadOnlyDetached(USR))
      OS << "read only detached: " << USR << "\n";
  return Out;
}

bool SummaryDocument::changesAnalysisOf(const SummaryDocument &Unit) const {
  for (const std::string &USR : Unit.ReadsSummaries)
    if (const FunctionSummary *S = lookup(USR); S && !S->isEmpty())
      return true;
  for (const std::string &USR : Unit.ReadsKeeps)
    if (const FunctionSummary *S = lookup(USR); S && S->KeepsNoHistory)
      return true;
  for (const std::string &USR : Unit.ReadsFields)
    if (fieldReadOnlyDetached(USR))
      return true;
  return llvm::any_of(Unit.ReadsCallers, [&](const std::string &USR) {
    return resultReachesBackward(USR) || calledOnlyUnderGuards(USR);
  });
}

const FunctionSummary *SummaryDocument::lookup(llvm::StringRef USR) const {
  auto It = Functions.find(USR.str());
  return It == Functions.end() ? nullptr : &It->second;
}

llvm::json::Value SummaryDocument::toJSON() const {
  llvm::json::Array Fns, Results;
  for (const auto &[USR, S] : Functions)
    Fns.push_back(torch_check::toJSON(S));
  for (const std::string &USR : ResultReachesBackward)
    Results.push_back(USR);
  llvm::json::Object O{{"version", SummaryFormatVersion},
                       {"functions", std::move(Fns)},
                       {"resultReachesBackward", std::move(Results)}};
  for (const auto &[Key, Set] : {std::pair<const char *, const std::set<std::string> *>{
                                     "calledGuarded", &CalledGuarded},
                                 {"calledUnguarded", &CalledUnguarded},
                                 {"fieldsReadDetached", &FieldsReadDetached},
                                 {"fieldsReadOtherwise", &FieldsReadOtherwise}})
    if (!Set->empty())
      O[Key] = llvm::json::Array(std::vector<llvm::json::Value>(Set->begin(), Set->end()));
  if (!CalledUnguardedVia.empty()) {
    llvm::json::Object Via;
    for (const auto &[USR, Entries] : CalledUnguardedVia)
      Via[USR] = llvm::json::Array(std::vector<llvm::json::Value>(Entries.begin(), Entries.end()));
    O["calledUnguardedVia"] = std::move(Via);
  }
  return O;
}

std::string SummaryDocument::toText() const {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  // One element per line.
  auto Array = [&OS](llvm::StringRef Key, const auto &Items, auto ToJSON) {
    OS << ",\n\"" << Key << "\": [";
    bool First = true;
    for (const auto &Item : Items) {
      OS << (First ? "\n" : ",\n") << ToJSON(Item);
      First = false;
    }
    OS << "]";
  };
  auto USRValue = [](const std::string &USR) { return llvm::json::Value(USR); };
  OS << "{\"version\": " << SummaryFormatVersion;
  Array("functions", Functions, [](const auto &Entry) { return torch_check::toJSON(Entry.second); });
  Array("resultReachesBackward", ResultReachesBackward, USRValue);
  if (!Uses.empty())
    Array("uses", Uses, USRValue);
  if (!ReadsSummaries.empty())
    Array("readsSummaries", ReadsSummaries, USRValue);
  if (!ReadsCallers.empty())
    Array("readsCallers", ReadsCallers, USRValue);
  if (!ReadsKeeps.empty())
    Array("readsKeeps", ReadsKeeps, USRValue);
  if (!CalledGuarded.empty())
    Array("calledGuarded", CalledGuarded, USRValue);
  if (!CalledUnguarded.empty())
    Array("calledUnguarded", CalledUnguarded, USRValue);
  if (!FieldsReadDetached.empty())
    Array("fieldsReadDetached", FieldsReadDetached, USRValue);
  if (!FieldsReadOtherwise.empty())
    Array("fieldsReadOtherwise", FieldsReadOtherwise, USRValue);
  if (!ReadsFields.empty())
    Array("readsFields", ReadsFields, USRValue);
  if (!CalledUnguardedVia.empty()) {
    OS << ",\n\"calledUnguardedVia\": {";
    bool First = true;
    for (const auto &[USR, Entries] : CalledUnguardedVia) {
      OS << (First ? "\n" : ",\n") << llvm::json::Value(USR) << ": "
         << llvm::json::Value(
                llvm::json::Array(std::vector<llvm::json::Value>(Entries.begin(), Entries.end())));
      First = false;
    }
    OS << "}";
  }
  OS << "}\n";
  return Out;
}

llvm::Expected<SummaryDocument> parseSummaryDocument(llvm::StringRef Text) {
  auto Fail = [](const llvm::Twine &Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Why);
  };
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V)
    return Fail("not JSON: " + llvm::toString(V.takeError()));
  const llvm::json::Object *O = V->getAsObject();
  if (!O)
    return Fail("expected an object with \"functions\"");
  std::optional<int64_t> Version = O->getInteger("version");
  if (!Version || *Version != SummaryFormatVersion)
    return Fail("expected \"version\": " + llvm::Twine(SummaryFormatVersion));
  const llvm::json::Array *Fns = O->getArray("functions");
  const llvm::json::Array *Results = O->getArray("resultReachesBackward");
  if (!Fns || !Results)
    return Fail("expected the arrays \"functions\" and \"resultReachesBackward\"");
  SummaryDocument Doc;
  for (const llvm::json::Value &FV : *Fns) {
    FunctionSummary S;
    llvm::json::Path::Root Root("functions");
    if (!fromJSON(FV, S, Root)) {
      std::string Msg;
      llvm::raw_string_ostream OS(Msg);
      OS << "a function summary: " << llvm::toString(Root.getError());
      return Fail(OS.str());
    }
    if (S.USR.empty())
      return Fail("a function summary without a \"usr\"");
    auto [It, Inserted] = Doc.Functions.try_emplace(S.USR, S);
    if (!Inserted)
      mergeSummary(It->second, S);
  }
  for (const llvm::json::Value &R : *Results) {
    std::optional<llvm::StringRef> USR = R.getAsString();
    if (!USR)
      return Fail("\"resultReachesBackward\": expected strings");
    Doc.ResultReachesBackward.insert(USR->str());
  }
  // The optional arrays (a unit's document's; the callers' guards).
  struct {
    llvm::StringRef Key;
    std::set<std::string> &Into;
  } UnitArrays[] = {{"uses", Doc.Uses},
                    {"readsSummaries", Doc.ReadsSummaries},
                    {"readsCallers", Doc.ReadsCallers},
                    {"readsKeeps", Doc.ReadsKeeps},
                    {"calledGuarded", Doc.CalledGuarded},
                    {"calledUnguarded", Doc.CalledUnguarded},
                    {"fieldsReadDetached", Doc.FieldsReadDetached},
                    {"fieldsReadOtherwise", Doc.FieldsReadOtherwise},
                    {"readsFields", Doc.ReadsFields}};
  for (auto &[Key, Into] : UnitArrays) {
    const llvm::json::Value *V = O->get(Key);
    if (!V)
      continue;
    const llvm::json::Array *A = V->getAsArray();
    if (!A)
      return Fail("\"" + Key + "\": expected an array");
    for (const llvm::json::Value &U : *A) {
      std::optional<llvm::StringRef> USR = U.getAsString();
      if (!USR)
        return Fail("\"" + Key + "\": expected strings");
      Into.insert(USR->str());
    }
  }
  if (const llvm::json::Value *V = O->get("calledUnguardedVia")) {
    const llvm::json::Object *Via = V->getAsObject();
    if (!Via)
      return Fail("\"calledUnguardedVia\": expected an object");
    for (const auto &[USR, EntriesV] : *Via) {
      const llvm::json::Array *A = EntriesV.getAsArray();
      if (!A)
        return Fail("\"calledUnguardedVia\": expected arrays of strings");
      std::set<std::string> &Into = Doc.CalledUnguardedVia[USR.str()];
      for (const llvm::json::Value &E : *A) {
        std::optional<llvm::StringRef> Entry = E.getAsString();
        if (!Entry)
          return Fail("\"calledUnguardedVia\": expected arrays of strings");
        Into.insert(Entry->str());
      }
    }
  }
  return Doc;
}

llvm::Expected<SummaryDocument> readSummaryFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s", Path.str().c_str(),
                                   Buf.getError().message().c_str());
  auto Doc = parseSummaryDocument((*Buf)->getBuffer());
  if (!Doc)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "'%s': %s",
                                   Path.str().c_str(), llvm::toString(Doc.takeError()).c_str());
  return Doc;
}

llvm::Error writeSummaryFile(llvm::StringRef Path, const SummaryDocument &Doc) {
  llvm::SmallString<256> Model(Path);
  Model += ".tmp-%%%%%%%%";
  llvm::SmallString<256> Tmp;
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Tmp))
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Doc.toText();
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      llvm::sys::fs::remove(Tmp);
      return llvm::createStringError(EC, "cannot write '%s': %s", Path.str().c_str(),
                                     EC.message().c_str());
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    llvm::sys::fs::remove(Tmp);
    return llvm::createStringError(EC, "cannot write '%s': %s", Path.str().c_str(),
                                   EC.message().c_str());
  }
  return llvm::Error::success();
}

} // namespace clang::tidy::torch_check
