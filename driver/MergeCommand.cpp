//===--- MergeCommand.cpp - libtorch-tidy merge ---------------------------===//
//
//   libtorch-tidy merge [--format=json|sarif|text|github|gitlab] [-o FILE] REPORT...
//
// Reads the reports of the shards of one analysis (JSON or SARIF, written by
// `libtorch-tidy --shard I/N`), checks that they are the parts of one split
// (same N, each part once, no translation unit twice), and writes the report
// an unsharded run writes: the findings read back, sorted and deduplicated
// (two shards report the same header finding), then written by the same
// writer. Paths in the reports are relative to the directory the shards ran
// in: run it there (the sources are read for SARIF's columns and the text
// report's lines). The SARIF rules are the inputs' torch- rules. The units a
// shard could not analyse and the checks that crashed are carried over, named
// on stderr and in the exit status (5 with findings, 2 without; 4 a crash), as
// the unsharded run gives them.
//
//===----------------------------------------------------------------------===//
#include "MergeCommand.h"
#include "Analysis.h"
#include "AnalyzeCommand.h"
#include "AtomicWrite.h"
#include "Fixes.h"
#include "Reports.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

namespace libtorch_tidy {

namespace json = llvm::json;

namespace {

int fail(const llvm::Twine &Message) {
  llvm::errs() << "libtorch-tidy merge: error: " << Message << '\n';
  return ExitError;
}

struct Input {
  std::string Path;
  ReportFormat Format = ReportFormat::Json;
  std::vector<Finding> Findings;
  std::vector<CheckInfo> Rules; // SARIF only
  std::optional<ShardInfo> Shard;
  std::vector<AnalysisNotice> Notices; // units not analysed, checks crashed
};

std::string absolutePath(llvm::StringRef Root, llvm::StringRef P) {
  llvm::SmallString<256> Out(P);
  if (!llvm::sys::path::is_absolute(Out)) {
    Out = Root;
    llvm::sys::path::append(Out, P);
  }
  llvm::sys::path::remove_dots(Out, true);
  return std::string(Out);
}

std::string uriUnescape(llvm::StringRef S) {
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned V;
    if (S[I] == '%' && I + 2 < S.size() && !S.substr(I + 1, 2).getAsInteger(16, V)) {
      Out += char(V);
      I += 2;
    } else {
      Out += S[I];
    }
  }
  return Out;
}

std::optional<ShardInfo> readShard(const json::Object *O) {
  if (!O)
    return std::nullopt;
  ShardInfo S;
  auto Index = O->getInteger("index"), Total = O->getInteger("total");
  const json::Array *Units = O->getArray("units");
  if (!Index || !Total || !Units)
    return std::nullopt;
  S.Index = unsigned(*Index);
  S.Total = unsigned(*Total);
  for (const json::Value &U : *Units)
    if (auto Str = U.getAsString())
      S.Units.push_back(Str->str());
  return S;
}

/// SARIF counts columns in code points, the findings in bytes.
unsigned byteColumn(SourceCache &Sources, const Location &L, unsigned CodePoints) {
  llvm::StringRef Line = Sources.lineText(L.File, L.Line);
  if (Line.empty())
    return CodePoints;
  unsigned Seen = 1, I = 0;
  for (; I < Line.size() && Seen < CodePoints; ++I)
    if (I + 1 >= Line.size() || (static_cast<unsigned char>(Line[I + 1]) & 0xC0) != 0x80)
      ++Seen;
  return I + 1;
}

/// The physical location of the first of \p O's "locations" (a result's, a
/// notification's); null when it has none.
const json::Object *firstPhysicalLocation(const json::Object &O) {
  const json::Array *Locs = O.getArray("locations");
  const json::Object *First = Locs && !Locs->empty() ? (*Locs)[0].getAsObject() : nullptr;
  return First ? First->getObject("physicalLocation") : nullptr;
}

Location sarifLocation(const json::Object *Physical, llvm::StringRef Root, SourceCache &Sources) {
  Location L;
  if (!Physical)
    return L;
  if (const json::Object *A = Physical->getObject("artifactLocation"))
    if (auto Uri = A->getString("uri")) {
      std::string U = uriUnescape(*Uri);
      L.File = llvm::StringRef(U).consume_front("file://") ? U.substr(7) : absolutePath(Root, U);
    }
  if (const json::Object *R = Physical->getObject("region")) {
    if (auto Line = R->getInteger("startLine")) {
      L.Line = unsigned(*Line);
      L.Column = byteColumn(Sources, L, unsigned(R->getInteger("startColumn").value_or(1)));
      Sources.offsetFromLine(L);
    } else if (auto Offset = R->getInteger("charOffset")) {
      L.Offset = unsigned(*Offset);
    }
  }
  return L;
}

llvm::Error readSarif(const json::Object &Doc, Input &In, llvm::StringRef Root, SourceCache &Sources) {
  auto Bad = [&](const char *Why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: malformed SARIF report: %s",
                                   In.Path.c_str(), Why);
  };
  const json::Array *Runs = Doc.getArray("runs");
  if (!Runs || Runs->size() != 1 || !(*Runs)[0].getAsObject())
    return Bad("not one run");
  const json::Object &Run = *(*Runs)[0].getAsObject();
  if (const json::Object *Props = Run.getObject("properties"))
    In.Shard = readShard(Props->getObject("libtorchTidyShard"));
  if (const json::Object *Tool = Run.getObject("tool"))
    if (const json::Object *Driver = Tool->getObject("driver"))
      if (const json::Array *Rules = Driver->getArray("rules"))
        for (const json::Value &RV : *Rules) {
          const json::Object *R = RV.getAsObject();
          if (!R || !R->getString("id"))
            continue;
          CheckInfo Info;
          Info.Id = R->getString("id")->str();
          if (const json::Object *D = R->getObject("shortDescription"))
            Info.Summary = D->getString("text").value_or("").str();
          if (const json::Object *H = R->getObject("help"))
            Info.HelpMarkdown = H->getString("markdown").value_or("").str();
          In.Rules.push_back(std::move(Info));
        }
  if (const json::Array *Invocations = Run.getArray("invocations"))
    for (const json::Value &IV : *Invocations)
      if (const json::Object *Inv = IV.getAsObject())
        if (const json::Array *Notes = Inv->getArray("toolExecutionNotifications"))
          for (const json::Value &NV : *Notes) {
            const json::Object *O = NV.getAsObject();
            if (!O)
              continue;
            AnalysisNotice N;
            if (const json::Object *Rule = O->getObject("associatedRule"))
              N.Check = Rule->getString("id").value_or("").str();
            if (const json::Object *Props = O->getObject("properties"))
              N.CrashReport = Props->getString("crashReport").value_or("").str();
            if (const json::Object *M = O->getObject("message"))
              N.Message = noticeMessage(M->getString("text").value_or(""), N.CrashReport);
            if (const json::Object *Physical = firstPhysicalLocation(*O))
              N.File = sarifLocation(Physical, Root, Sources).File;
            In.Notices.push_back(std::move(N));
          }
  const json::Array *Results = Run.getArray("results");
  if (!Results)
    return Bad("no results");
  for (const json::Value &V : *Results) {
    const json::Object *R = V.getAsObject();
    if (!R || !R->getString("ruleId"))
      return Bad("a result without ruleId");
    Finding F;
    F.Check = R->getString("ruleId")->str();
    F.Level = R->getString("level").value_or("warning").str();
    if (const json::Object *M = R->getObject("message"))
      F.Message = M->getString("text").value_or("").str();
    if (const json::Object *Physical = firstPhysicalLocation(*R))
      F.Loc = sarifLocation(Physical, Root, Sources);
    if (const json::Array *Related = R->getArray("relatedLocations"))
      for (const json::Value &RL : *Related) {
        const json::Object *O = RL.getAsObject();
        if (!O)
          continue;
        Note N;
        if (const json::Object *M = O->getObject("message"))
          N.Message = M->getString("text").value_or("").str();
        N.Loc = sarifLocation(O->getObject("physicalLocation"), Root, Sources);
        F.Notes.push_back(std::move(N));
      }
    if (const json::Object *FP = R->getObject("partialFingerprints"))
      F.Fingerprint = FP->getString("libtorchTidy/v1").value_or("").str();
    if (const json::Array *Fixes = R->getArray("fixes"))
      for (const json::Value &FixV : *Fixes)
        if (const json::Object *Fix = FixV.getAsObject())
          if (const json::Array *Changes = Fix->getArray("artifactChanges"))
            for (const json::Value &CV : *Changes) {
              const json::Object *C = CV.getAsObject();
              if (!C)
                continue;
              Location FileLoc = sarifLocation(&*C, Root, Sources);
              if (const json::Array *Reps = C->getArray("replacements"))
                for (const json::Value &RepV : *Reps) {
                  const json::Object *Rep = RepV.getAsObject();
                  if (!Rep)
                    continue;
                  Replacement Out;
                  Out.File = FileLoc.File;
                  if (const json::Object *D = Rep->getObject("deletedRegion")) {
                    Out.Offset = unsigned(D->getInteger("byteOffset").value_or(0));
                    Out.Length = unsigned(D->getInteger("byteLength").value_or(0));
                  }
                  if (const json::Object *Ins = Rep->getObject("insertedContent"))
                    Out.Text = Ins->getString("text").value_or("").str();
                  F.Fix.push_back(std::move(Out));
                }
            }
    In.Findings.push_back(std::move(F));
  }
  return llvm::Error::success();
}

Location jsonLocation(const json::Object &O, llvm::StringRef Root, SourceCache &Sources) {
  Location L;
  if (auto File = O.getString("file"); File && !File->empty())
    L.File = absolutePath(Root, *File);
  L.Line = unsigned(O.getInteger("line").value_or(0));
  L.Column = unsigned(O.getInteger("column").value_or(0));
  Sources.offsetFromLine(L);
  return L;
}

llvm::Error readJson(const json::Object &Doc, Input &In, llvm::StringRef Root, SourceCache &Sources) {
  const json::Array *Items = Doc.getArray("findings");
  if (!Items)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: malformed report: no \"findings\" array", In.Path.c_str());
  In.Shard = readShard(Doc.getObject("shard"));
  if (const json::Array *Failures = Doc.getArray("failures"))
    for (const json::Value &V : *Failures)
      if (const json::Object *O = V.getAsObject())
        In.Notices.push_back({absolutePath(Root, O->getString("file").value_or("")),
                              O->getString("check").value_or("").str(),
                              O->getString("message").value_or("").str(),
                              O->getString("crash_report").value_or("").str()});
  for (const json::Value &V : *Items) {
    const json::Object *O = V.getAsObject();
    if (!O)
      continue;
    Finding F;
    F.Check = O->getString("check").value_or("").str();
    F.Level = O->getString("severity").value_or("warning").str();
    F.Message = O->getString("message").value_or("").str();
    F.Fingerprint = O->getString("fingerprint").value_or("").str();
    F.Loc = jsonLocation(*O, Root, Sources);
    if (const json::Array *Notes = O->getArray("notes"))
      for (const json::Value &NV : *Notes)
        if (const json::Object *NO = NV.getAsObject())
          F.Notes.push_back({NO->getString("message").value_or("").str(), jsonLocation(*NO, Root, Sources)});
    if (const json::Array *Fix = O->getArray("fix"))
      for (const json::Value &RV : *Fix)
        if (const json::Object *R = RV.getAsObject())
          F.Fix.push_back({absolutePath(Root, R->getString("file").value_or("")),
                           unsigned(R->getInteger("offset").value_or(0)),
                           unsigned(R->getInteger("length").value_or(0)),
                           R->getString("replacement").value_or("").str()});
    In.Findings.push_back(std::move(F));
  }
  return llvm::Error::success();
}

} // namespace

int runMergeCommand(int Argc, const char **Argv) {
  std::string FormatName, Output;
  std::vector<std::string> Paths;
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A = Argv[I];
    auto Value = [&](llvm::StringRef Name, std::string &Out) {
      if (A == Name || A == Name.drop_front()) {
        if (I + 1 >= Argc)
          return false;
        Out = Argv[++I];
        return true;
      }
      if (A.consume_front(Name.str() + "=") || A.consume_front(Name.drop_front().str() + "=")) {
        Out = A.str();
        return true;
      }
      return false;
    };
    if (A == "--help" || A == "-help" || A == "-h") {
      llvm::outs() << "USAGE: libtorch-tidy merge [--format=json|sarif|text|github|gitlab] "
                      "[-o FILE] REPORT...\n\nMerges the JSON or SARIF reports of the shards of "
                      "one analysis (--shard I/N) into the report of an unsharded run.\n"
                   << subcommandsHelp();
      return ExitClean;
    }
    if (Value("--format", FormatName) || Value("--output", Output))
      continue;
    if (A == "-o" && I + 1 < Argc) {
      Output = Argv[++I];
      continue;
    }
    if (A.starts_with("-") && A != "-")
      return fail("unknown option '" + A + "' (see --help)");
    Paths.push_back(A.str());
  }
  if (Paths.empty())
    return fail("no report to merge (see --help)");

  llvm::SmallString<256> Root;
  llvm::sys::fs::current_path(Root);
  SourceCache Sources;
  std::vector<Input> Inputs;
  for (const std::string &P : Paths) {
    Input In;
    In.Path = P;
    auto Buf = llvm::MemoryBuffer::getFile(P);
    if (!Buf)
      return fail("cannot read " + P + ": " + Buf.getError().message());
    auto Doc = json::parse((*Buf)->getBuffer());
    if (!Doc)
      return fail(P + ": not a JSON or SARIF report: " + llvm::toString(Doc.takeError()));
    const json::Object *O = Doc->getAsObject();
    if (!O)
      return fail(P + ": not a JSON or SARIF report of libtorch-tidy");
    llvm::Error E = llvm::Error::success();
    if (O->getArray("runs")) {
      In.Format = ReportFormat::Sarif;
      E = readSarif(*O, In, Root, Sources);
    } else if (O->getString("tool") == llvm::StringRef("libtorch-tidy")) {
      In.Format = ReportFormat::Json;
      E = readJson(*O, In, Root, Sources);
    } else {
      return fail(P + ": not a JSON or SARIF report of libtorch-tidy");
    }
    if (E)
      return fail(llvm::toString(std::move(E)));
    Inputs.push_back(std::move(In));
  }

  // The shards must be the parts of one split.
  size_t Sharded = 0;
  for (const Input &In : Inputs)
    Sharded += In.Shard.has_value();
  if (Sharded && Sharded != Inputs.size())
    return fail("some reports come from a shard, others not");
  if (Sharded) {
    unsigned Total = Inputs[0].Shard->Total;
    std::set<unsigned> Seen;
    llvm::StringMap<std::string> UnitShard;
    for (const Input &In : Inputs) {
      if (In.Shard->Total != Total)
        return fail(In.Path + " is shard " + llvm::Twine(In.Shard->Index) + "/" +
                    llvm::Twine(In.Shard->Total) + ", another report is of " + llvm::Twine(Total));
      if (!Seen.insert(In.Shard->Index).second)
        return fail("shard " + llvm::Twine(In.Shard->Index) + " is given twice");
      for (const std::string &U : In.Shard->Units) {
        auto [It, New] = UnitShard.try_emplace(U, In.Path);
        if (!New)
          return fail(U + " was analysed by two shards (" + It->second + " and " + In.Path +
                      "): the shards did not split the same list (the same tree, compile "
                      "database and cache?)");
      }
    }
    if (Seen.size() != Total) {
      std::string Missing;
      for (unsigned I = 1; I <= Total; ++I)
        if (!Seen.count(I))
          Missing += (Missing.empty() ? "" : ", ") + std::to_string(I);
      return fail("shard " + Missing + " of " + llvm::Twine(Total) + " is missing");
    }
  }

  ReportFormat Format = Inputs[0].Format;
  if (!FormatName.empty()) {
    auto F = parseReportFormat(FormatName);
    if (!F)
      return fail("--format " + FormatName + ": not one of text, json, sarif, github, gitlab");
    Format = *F;
  }

  std::vector<Finding> Findings;
  ReportContext Ctx;
  Ctx.Root = std::string(Root);
  Ctx.Sources = &Sources;
  for (Input &In : Inputs) {
    // The registered checks lead every SARIF report's rules: the torch- ones.
    if (Ctx.Checks.empty())
      for (const CheckInfo &R : In.Rules) {
        if (!llvm::StringRef(R.Id).starts_with("torch-"))
          break;
        Ctx.Checks.push_back(R);
      }
    for (Finding &F : In.Findings) {
      Sources.locate(F.Loc);
      Findings.push_back(std::move(F));
    }
    for (AnalysisNotice &N : In.Notices)
      Ctx.Notices.push_back(std::move(N));
  }
  sortAndDedupe(Findings);

  std::string Report;
  {
    llvm::raw_string_ostream OS(Report);
    writeReport(Format, Findings, Ctx, OS);
  }
  if (Output.empty() || Output == "-") {
    llvm::outs() << Report;
    llvm::outs().flush();
  } else {
    llvm::SmallString<256> Abs(Output);
    llvm::sys::fs::make_absolute(Abs);
    if (auto E = writeFileAtomically(Abs, Report))
      return fail(llvm::toString(std::move(E)));
  }
  // What the shards could not do is the merged run's too: each part named on
  // stderr, and in the exit status as an unsharded run would give it.
  unsigned NotAnalysed = 0, Crashed = 0;
  for (const AnalysisNotice &N : Ctx.Notices) {
    (N.Check.empty() ? NotAnalysed : Crashed) += 1;
    llvm::errs() << "libtorch-tidy merge: " << displayPath(N.File, Root) << ": " << noticeText(N) << '\n';
  }
  if (NotAnalysed)
    fail(countOf(NotAnalysed, "translation unit") + " could not be analysed (named above)" +
         (Findings.empty() ? "" : "; " + countOf(Findings.size(), "finding") + " reported in the others"));
  else if (Crashed)
    fail("a check crashed on " + countOf(Crashed, "translation unit") +
         " (named above): the findings of the other checks are reported");
  return analysisExit(NotAnalysed, Crashed, !Findings.empty());
}

} // namespace libtorch_tidy
