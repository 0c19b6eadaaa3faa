//===--- Reports.cpp ------------------------------------------------------===//
#include "Reports.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"

namespace libtorch_tidy {

namespace json = llvm::json;

std::optional<ReportFormat> parseReportFormat(llvm::StringRef Name) {
  if (Name == "text")
    return ReportFormat::Text;
  if (Name == "json")
    return ReportFormat::Json;
  if (Name == "sarif")
    return ReportFormat::Sarif;
  if (Name == "github")
    return ReportFormat::GitHub;
  if (Name == "gitlab")
    return ReportFormat::GitLab;
  if (Name == "rdjson")
    return ReportFormat::RdJson;
  return std::nullopt;
}

CheckInfo checkInfo(llvm::StringRef Check, llvm::StringRef DocsDir) {
  CheckInfo Info;
  Info.Id = Check.str();
  if (DocsDir.empty())
    return Info;
  llvm::SmallString<256> P(DocsDir);
  llvm::sys::path::append(P, "checks", Check + ".md");
  auto Buf = llvm::MemoryBuffer::getFile(P);
  if (!Buf)
    return Info;
  Info.HelpMarkdown = (*Buf)->getBuffer().str();
  // The first paragraph after the title, joined into one line.
  llvm::StringRef Text = (*Buf)->getBuffer();
  std::string Summary;
  bool Started = false;
  while (!Text.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    Line = Line.trim();
    if (Line.starts_with("#"))
      continue;
    if (Line.empty()) {
      if (Started)
        break;
      continue;
    }
    Started = true;
    if (!Summary.empty())
      Summary += ' ';
    Summary += Line.str();
  }
  Info.Summary = Summary;
  return Info;
}

static std::string path(const ReportContext &Ctx, llvm::StringRef File) {
  return displayPath(File, Ctx.Root);
}

/// The id a notice is reported under: the crashed check, else the driver's.
static std::string noticeId(const AnalysisNotice &N) {
  return N.Check.empty() ? "libtorch-tidy-not-analysed" : N.Check;
}

static std::string crashReportSuffix(llvm::StringRef Report) {
  return (" (crash report: " + Report + ")").str();
}

std::string noticeText(const AnalysisNotice &N) {
  return N.CrashReport.empty() ? N.Message : N.Message + crashReportSuffix(N.CrashReport);
}

std::string noticeMessage(llvm::StringRef Text, llvm::StringRef CrashReport) {
  if (!CrashReport.empty())
    Text.consume_back(crashReportSuffix(CrashReport));
  return Text.str();
}

// ---- text: clang-style -------------------------------------------------------

static void writeLocation(llvm::raw_ostream &OS, const ReportContext &Ctx, const Location &L) {
  if (L.File.empty())
    return;
  OS << path(Ctx, L.File);
  if (L.Line)
    OS << ':' << L.Line << ':' << L.Column;
  OS << ": ";
}

static void writeSnippet(llvm::raw_ostream &OS, const ReportContext &Ctx, const Location &L) {
  if (!Ctx.Sources || !L.Line)
    return;
  llvm::StringRef Line = Ctx.Sources->lineText(L.File, L.Line);
  if (Line.empty())
    return;
  OS << Line << '\n';
  for (unsigned I = 1; I < L.Column && I <= Line.size(); ++I)
    OS << (Line[I - 1] == '\t' ? '\t' : ' ');
  OS << "^\n";
}

static void writeText(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                      llvm::raw_ostream &OS) {
  for (const Finding &F : Findings) {
    writeLocation(OS, Ctx, F.Loc);
    OS << F.Level << ": " << F.Message << " [" << F.Check << "]\n";
    writeSnippet(OS, Ctx, F.Loc);
    for (const Note &N : F.Notes) {
      writeLocation(OS, Ctx, N.Loc);
      OS << "note: " << N.Message << '\n';
      writeSnippet(OS, Ctx, N.Loc);
    }
  }
}

// ---- json: the driver's own, stable format -----------------------------------

static json::Object shardJson(const ShardInfo &S) {
  json::Array Units;
  for (const std::string &U : S.Units)
    Units.push_back(U);
  return json::Object{{"index", S.Index}, {"total", S.Total}, {"units", std::move(Units)}};
}

static json::Object locationJson(const ReportContext &Ctx, const Location &L) {
  return json::Object{{"file", path(Ctx, L.File)}, {"line", L.Line}, {"column", L.Column}};
}

static void writeJson(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                      llvm::raw_ostream &OS) {
  json::Array Items;
  for (const Finding &F : Findings) {
    json::Object Item = locationJson(Ctx, F.Loc);
    Item["check"] = F.Check;
    Item["severity"] = F.Level;
    Item["message"] = F.Message;
    Item["fingerprint"] = F.Fingerprint;
    json::Array Notes;
    for (const Note &N : F.Notes) {
      json::Object O = locationJson(Ctx, N.Loc);
      O["message"] = N.Message;
      Notes.push_back(std::move(O));
    }
    Item["notes"] = std::move(Notes);
    json::Array Fix;
    for (const Replacement &R : F.Fix)
      Fix.push_back(json::Object{{"file", path(Ctx, R.File)},
                                 {"offset", R.Offset},
                                 {"length", R.Length},
                                 {"replacement", R.Text}});
    Item["fix"] = std::move(Fix);
    Items.push_back(std::move(Item));
  }
  json::Object Doc{{"version", 1}, {"tool", "libtorch-tidy"}, {"findings", std::move(Items)}};
  if (Ctx.Shard)
    Doc["shard"] = shardJson(*Ctx.Shard);
  if (!Ctx.Notices.empty()) {
    json::Array Failures;
    for (const AnalysisNotice &N : Ctx.Notices) {
      json::Object O{{"file", path(Ctx, N.File)}, {"message", N.Message}};
      if (!N.Check.empty())
        O["check"] = N.Check;
      if (!N.CrashReport.empty())
        O["crash_report"] = N.CrashReport;
      Failures.push_back(std::move(O));
    }
    Doc["failures"] = std::move(Failures);
  }
  OS << llvm::formatv("{0:2}", json::Value(std::move(Doc))) << '\n';
}

// ---- SARIF 2.1.0 -------------------------------------------------------------

static std::string uriEscape(llvm::StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Out += C;
    else
      Out += llvm::formatv("%{0:X-2}", unsigned(C)).str();
  }
  return Out;
}

static json::Object artifactLocation(const ReportContext &Ctx, llvm::StringRef File) {
  std::string P = path(Ctx, File);
  if (llvm::sys::path::is_absolute(P))
    return json::Object{{"uri", "file://" + uriEscape(P)}};
  return json::Object{{"uri", uriEscape(P)}, {"uriBaseId", "SRCROOT"}};
}

/// SARIF columns count Unicode code points (the run's columnKind); clang's
/// count bytes.
static unsigned codePointColumn(const ReportContext &Ctx, const Location &L) {
  if (!Ctx.Sources)
    return L.Column;
  llvm::StringRef Line = Ctx.Sources->lineText(L.File, L.Line);
  unsigned Column = 1;
  for (unsigned I = 0; I + 1 < L.Column && I < Line.size(); ++I)
    if ((static_cast<unsigned char>(Line[I]) & 0xC0) != 0x80)
      ++Column;
  return Column;
}

static json::Object region(const ReportContext &Ctx, const Location &L) {
  json::Object R;
  if (L.Line) {
    R["startLine"] = L.Line;
    R["startColumn"] = codePointColumn(Ctx, L);
  } else {
    R["charOffset"] = L.Offset;
  }
  return R;
}

/// The run's one invocation when part of it failed: executionSuccessful
/// false, a toolExecutionNotification per unit not analysed or crashed check
/// (code-scanning services list them as the tool's errors).
static json::Object sarifInvocation(const ReportContext &Ctx) {
  json::Array Notifications;
  for (const AnalysisNotice &N : Ctx.Notices) {
    json::Object O{
        {"level", "error"},
        {"message", json::Object{{"text", noticeText(N)}}},
        {"descriptor", json::Object{{"id", N.Check.empty() ? "libtorch-tidy/not-analysed"
                                                            : "libtorch-tidy/check-crashed"}}},
        {"locations", json::Array{json::Object{
                          {"physicalLocation", json::Object{{"artifactLocation", artifactLocation(Ctx, N.File)}}}}}}};
    if (!N.Check.empty())
      O["associatedRule"] = json::Object{{"id", N.Check}};
    if (!N.CrashReport.empty())
      O["properties"] = json::Object{{"crashReport", N.CrashReport}};
    Notifications.push_back(std::move(O));
  }
  return json::Object{{"executionSuccessful", false},
                      {"toolExecutionNotifications", std::move(Notifications)}};
}

static void writeSarif(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                       llvm::raw_ostream &OS) {
  // One rule per check: the documented ones, then any other with a finding.
  std::vector<CheckInfo> Rules = Ctx.Checks;
  llvm::StringMap<unsigned> RuleIndex;
  for (unsigned I = 0; I < Rules.size(); ++I)
    RuleIndex[Rules[I].Id] = I;
  for (const Finding &F : Findings)
    if (!RuleIndex.count(F.Check)) {
      RuleIndex[F.Check] = Rules.size();
      CheckInfo Info;
      Info.Id = F.Check;
      Rules.push_back(Info);
    }
  json::Array RulesJson;
  for (const CheckInfo &Rule : Rules) {
    json::Object R{{"id", Rule.Id}, {"name", Rule.Id}};
    std::string Summary = Rule.Summary.empty() ? "clang-tidy check " + Rule.Id : Rule.Summary;
    R["shortDescription"] = json::Object{{"text", Summary}};
    if (!Rule.HelpMarkdown.empty())
      R["help"] = json::Object{{"text", Summary}, {"markdown", Rule.HelpMarkdown}};
    std::string Link = docsLink(Rule.Id);
    if (!Link.empty())
      R["helpUri"] = Link;
    RulesJson.push_back(std::move(R));
  }

  json::Array Results;
  for (const Finding &F : Findings) {
    json::Object Result{{"ruleId", F.Check},
                        {"ruleIndex", RuleIndex[F.Check]},
                        {"level", F.Level == "error" ? "error" : F.Level == "note" ? "note" : "warning"},
                        {"message", json::Object{{"text", F.Message}}}};
    if (!F.Loc.File.empty())
      Result["locations"] = json::Array{json::Object{
          {"physicalLocation", json::Object{{"artifactLocation", artifactLocation(Ctx, F.Loc.File)},
                                            {"region", region(Ctx, F.Loc)}}}}};
    json::Array Related;
    unsigned Id = 0;
    for (const Note &N : F.Notes) {
      json::Object Rel{{"id", Id++}, {"message", json::Object{{"text", N.Message}}}};
      if (!N.Loc.File.empty())
        Rel["physicalLocation"] = json::Object{{"artifactLocation", artifactLocation(Ctx, N.Loc.File)},
                                               {"region", region(Ctx, N.Loc)}};
      Related.push_back(std::move(Rel));
    }
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    if (!F.Fingerprint.empty())
      Result["partialFingerprints"] = json::Object{{"libtorchTidy/v1", F.Fingerprint}};
    if (!F.Fix.empty()) {
      // One artifactChange per file, its replacements as byte ranges.
      std::map<std::string, json::Array> ByFile;
      for (const Replacement &R : F.Fix) {
        json::Object Deleted{{"byteOffset", R.Offset}, {"byteLength", R.Length}};
        ByFile[R.File].push_back(json::Object{{"deletedRegion", std::move(Deleted)},
                                              {"insertedContent", json::Object{{"text", R.Text}}}});
      }
      json::Array Changes;
      for (auto &[File, Replacements] : ByFile)
        Changes.push_back(json::Object{{"artifactLocation", artifactLocation(Ctx, File)},
                                       {"replacements", std::move(Replacements)}});
      Result["fixes"] = json::Array{json::Object{
          {"description", json::Object{{"text", "fix-it of " + F.Check}}},
          {"artifactChanges", std::move(Changes)}}};
    }
    Results.push_back(std::move(Result));
  }

  json::Object Driver{{"name", "libtorch-tidy"},
                      {"version", toolVersion()},
                      {"informationUri", "https://clang.llvm.org/extra/clang-tidy/"},
                      {"rules", std::move(RulesJson)}};
  std::string RootUri = "file://" + uriEscape(llvm::sys::path::convert_to_slash(Ctx.Root));
  if (!llvm::StringRef(RootUri).ends_with("/"))
    RootUri += '/';
  json::Object Run{{"tool", json::Object{{"driver", std::move(Driver)}}},
                   {"originalUriBaseIds", json::Object{{"SRCROOT", json::Object{{"uri", RootUri}}}}},
                   {"columnKind", "unicodeCodePoints"},
                   {"results", std::move(Results)}};
  if (Ctx.Shard)
    Run["properties"] = json::Object{{"libtorchTidyShard", shardJson(*Ctx.Shard)}};
  if (!Ctx.Notices.empty())
    Run["invocations"] = json::Array{sarifInvocation(Ctx)};
  json::Object Doc{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                   {"version", "2.1.0"},
                   {"runs", json::Array{std::move(Run)}}};
  OS << llvm::formatv("{0:2}", json::Value(std::move(Doc))) << '\n';
}

// ---- GitHub workflow commands ------------------------------------------------

static std::string githubEscape(llvm::StringRef S, bool Property) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '%': Out += "%25"; break;
    case '\r': Out += "%0D"; break;
    case '\n': Out += "%0A"; break;
    case ':': Out += Property ? "%3A" : ":"; break;
    case ',': Out += Property ? "%2C" : ","; break;
    default: Out += C;
    }
  }
  return Out;
}

static void writeGitHub(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                        llvm::raw_ostream &OS) {
  for (const Finding &F : Findings) {
    OS << "::" << (F.Level == "error" ? "error" : F.Level == "note" ? "notice" : "warning") << ' ';
    if (!F.Loc.File.empty()) {
      OS << "file=" << githubEscape(path(Ctx, F.Loc.File), true);
      if (F.Loc.Line)
        OS << ",line=" << F.Loc.Line << ",col=" << F.Loc.Column;
      OS << ',';
    }
    OS << "title=" << githubEscape(F.Check, true) << "::" << githubEscape(F.Message, false) << '\n';
  }
  for (const AnalysisNotice &N : Ctx.Notices)
    OS << "::error file=" << githubEscape(path(Ctx, N.File), true) << ",title="
       << githubEscape(N.Check.empty() ? "libtorch-tidy: not analysed" : "libtorch-tidy: " + N.Check + " crashed",
                       true)
       << "::" << githubEscape(noticeText(N), false) << '\n';
}

// ---- GitLab Code Quality -----------------------------------------------------

static void writeGitLab(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                        llvm::raw_ostream &OS) {
  json::Array Items;
  for (const Finding &F : Findings) {
    std::string Description = F.Message;
    for (const Note &N : F.Notes)
      Description += "\nnote: " + N.Message;
    Items.push_back(json::Object{
        {"description", Description},
        {"check_name", F.Check},
        {"fingerprint", F.Fingerprint},
        {"severity", F.Level == "error" ? "critical" : F.Level == "note" ? "info" : "major"},
        {"location", json::Object{{"path", path(Ctx, F.Loc.File)},
                                  {"lines", json::Object{{"begin", std::max(1u, F.Loc.Line)}}}}}});
  }
  for (const AnalysisNotice &N : Ctx.Notices) {
    // Fingerprinted by what failed where, so that the merge request widget
    // shows it as one issue across pipelines until it is gone.
    std::string Key = noticeId(N) + '\0' + path(Ctx, N.File);
    auto Hash = llvm::SHA1::hash(llvm::arrayRefFromStringRef(Key));
    Items.push_back(json::Object{
        {"description", noticeText(N)},
        {"check_name", noticeId(N)},
        {"fingerprint", llvm::toHex(llvm::ArrayRef<uint8_t>(Hash).take_front(16), /*LowerCase=*/true)},
        {"severity", "critical"},
        {"location", json::Object{{"path", path(Ctx, N.File)}, {"lines", json::Object{{"begin", 1}}}}}});
  }
  OS << llvm::formatv("{0:2}", json::Value(std::move(Items))) << '\n';
}

// ---- reviewdog (rdjson) -----------------------------------------------------

/// A 1-based line and byte column of Offset in File, as rdjson wants them.
std::vector<RdSuggestion> rdSuggestions(const Finding &F, const ReportContext &Ctx) {
  std::vector<RdSuggestion> Out;
  for (const Replacement &R : F.Fix) {
    if (R.File != F.Loc.File)
      return {}; // a fix-it in another file: none (all or nothing)
    Location Start, End;
    Start.File = End.File = R.File;
    Start.Offset = R.Offset;
    End.Offset = R.Offset + R.Length;
    if (!Ctx.Sources)
      return {};
    Ctx.Sources->locate(Start);
    Ctx.Sources->locate(End);
    if (!Start.Line || !End.Line)
      return {};
    Out.push_back({Start, End, R.Text});
  }
  return Out;
}

static void writeRdJson(const std::vector<Finding> &Findings, const ReportContext &Ctx,
                        llvm::raw_ostream &OS) {
  json::Array Diagnostics;
  for (const Finding &F : Findings) {
    std::string Message = F.Message;
    for (const Note &N : F.Notes)
      Message += "\nnote: " + (N.Loc.File.empty() ? std::string()
                                                 : path(Ctx, N.Loc.File) + ":" + std::to_string(N.Loc.Line) +
                                                       ": ") +
                 N.Message;
    json::Object Code{{"value", F.Check}};
    std::string Link = docsLink(F.Check);
    if (!Link.empty())
      Code["url"] = Link;
    json::Object D{{"message", Message},
                   {"severity", F.Level == "error" ? "ERROR" : F.Level == "note" ? "INFO" : "WARNING"},
                   {"code", std::move(Code)}};
    json::Object Loc{{"path", path(Ctx, F.Loc.File)}};
    if (F.Loc.Line)
      Loc["range"] = json::Object{{"start", json::Object{{"line", F.Loc.Line}, {"column", F.Loc.Column}}}};
    D["location"] = std::move(Loc);
    json::Array Suggestions;
    for (const RdSuggestion &S : rdSuggestions(F, Ctx))
      Suggestions.push_back(json::Object{
          {"range", json::Object{{"start", json::Object{{"line", S.Start.Line}, {"column", S.Start.Column}}},
                                 {"end", json::Object{{"line", S.End.Line}, {"column", S.End.Column}}}}},
          {"text", S.Text}});
    if (!Suggestions.empty())
      D["suggestions"] = std::move(Suggestions);
    Diagnostics.push_back(std::move(D));
  }
  // An error at the top of the file per unit not analysed or crashed check
  // (reviewdog drops a diagnostic without a line from a review).
  for (const AnalysisNotice &N : Ctx.Notices) {
    json::Object Code{{"value", noticeId(N)}};
    std::string Link = N.Check.empty() ? "" : docsLink(N.Check);
    if (!Link.empty())
      Code["url"] = Link;
    json::Object Start{{"line", 1}, {"column", 1}};
    Diagnostics.push_back(json::Object{
        {"message", noticeText(N)},
        {"severity", "ERROR"},
        {"code", std::move(Code)},
        {"location", json::Object{{"path", path(Ctx, N.File)},
                                  {"range", json::Object{{"start", std::move(Start)}}}}}});
  }
  json::Object Source{{"name", "libtorch-tidy"}};
  OS << llvm::formatv("{0:2}", json::Value(json::Object{{"source", std::move(Source)},
                                                        {"severity", "WARNING"},
                                                        {"diagnostics", std::move(Diagnostics)}}))
     << '\n';
}

void writeReport(ReportFormat Format, const std::vector<Finding> &Findings, const ReportContext &Ctx,
                 llvm::raw_ostream &OS) {
  switch (Format) {
  case ReportFormat::Text: return writeText(Findings, Ctx, OS);
  case ReportFormat::Json: return writeJson(Findings, Ctx, OS);
  case ReportFormat::Sarif: return writeSarif(Findings, Ctx, OS);
  case ReportFormat::GitHub: return writeGitHub(Findings, Ctx, OS);
  case ReportFormat::GitLab: return writeGitLab(Findings, Ctx, OS);
  case ReportFormat::RdJson: return writeRdJson(Findings, Ctx, OS);
  }
}

} // namespace libtorch_tidy
