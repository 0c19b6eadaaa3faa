//===--- Reports.h - text, json, sarif, github, gitlab, rdjson ------------===//
#ifndef LIBTORCH_TIDY_DRIVER_REPORTS_H
#define LIBTORCH_TIDY_DRIVER_REPORTS_H

#include "Findings.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

enum class ReportFormat { Text, Json, Sarif, GitHub, GitLab, RdJson };
std::optional<ReportFormat> parseReportFormat(llvm::StringRef Name);

/// A check's documentation: its id and the one-line summary of its page.
struct CheckInfo {
  std::string Id;
  std::string Summary;
  std::string HelpMarkdown; // the whole page; empty for checks without one
};

/// The part of a sharded run a report covers (see Shards.h).
struct ShardInfo {
  unsigned Index = 1, Total = 1;
  std::vector<std::string> Units; // its translation units, as reported paths
};

/// A part of the analysis that did not run, which every report names beside
/// the findings: a translation unit not analysed, or a check that crashed on
/// one (the unit's other findings are reported; CrashIsolation.h).
struct AnalysisNotice {
  std::string File;        // the translation unit's main file, absolute
  std::string Check;       // the check that crashed; empty: the unit was not analysed
  std::string Message;     // one line: why
  std::string CrashReport; // the crash report's path; empty: none
};

struct ReportContext {
  std::string Root;                // paths in reports are relative to it
  std::vector<CheckInfo> Checks;   // rules of the SARIF report
  SourceCache *Sources = nullptr;  // source lines for the text report
  std::optional<ShardInfo> Shard;  // json and sarif name the shard
  std::vector<AnalysisNotice> Notices; // every format but text names them (text: the summary)
};

/// A notice's one line as every report writes it: its message, and its crash
/// report when there is one.
std::string noticeText(const AnalysisNotice &N);
/// The message of a notice read back from noticeText's \p Text and its
/// crash report (merge reads SARIF notifications this way).
std::string noticeMessage(llvm::StringRef Text, llvm::StringRef CrashReport);

void writeReport(ReportFormat Format, const std::vector<Finding> &Findings, const ReportContext &Ctx,
                 llvm::raw_ostream &OS);

/// One replacement of a finding's fix-it by line and byte column (end
/// exclusive), as reviewdog's suggestions and review comments want it; none
/// when the fix-it touches another file than the finding's.
struct RdSuggestion {
  Location Start, End;
  std::string Text;
};
std::vector<RdSuggestion> rdSuggestions(const Finding &F, const ReportContext &Ctx);

/// The one-line summary of a check's doc page (its first paragraph), and the page.
CheckInfo checkInfo(llvm::StringRef Check, llvm::StringRef DocsDir);

} // namespace libtorch_tidy

#endif
