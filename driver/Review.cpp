//===--- Review.cpp - A change's findings as a code review -----------------===//
#include "Review.h"
#include "Analysis.h"
#include "AnalysisFlags.h"
#include "Fixes.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/xxhash.h"

namespace libtorch_tidy {
namespace json = llvm::json;

/// The summary's marker names the builds it speaks for: in a repository
/// with one build per sub-project, each build's review keeps its own summary.
std::string summaryMarker(llvm::StringRef Builds) {
  return ("<!-- libtorch-tidy review: " + Builds + " -->").str();
}
/// The body of a GitHub review that only carries new comments (the summary
/// is the earlier review's, edited).
std::string commentsMarker(llvm::StringRef Builds) {
  return ("<!-- libtorch-tidy comments: " + Builds + " -->").str();
}

/// A comment's hidden marker: the finding's fingerprint and its anchor (a
/// hash of the numbers and the text of the lines the comment is on at the
/// commit it was posted on).
std::string marker(llvm::StringRef Key, llvm::StringRef Anchor, bool Resolved) {
  return ("<!-- libtorch-tidy: " + Key + (Anchor.empty() ? "" : " at " + Anchor) + (Resolved ? " resolved" : "") +
          " -->")
      .str();
}

std::optional<Marker> markerOf(llvm::StringRef Body) {
  llvm::SmallVector<llvm::StringRef, 5> M;
  if (!llvm::Regex("<!-- libtorch-tidy: ([0-9a-f]+)( at ([0-9a-f]+))?( resolved)? -->").match(Body, &M))
    return std::nullopt;
  return Marker{M[1].str(), M[3].str(), !M[4].empty()};
}

/// The anchor of a comment on lines [First, Last] of \p Text.
std::string anchorOf(llvm::StringRef Text, unsigned First, unsigned Last) {
  size_t Begin = 0;
  for (unsigned L = 1; L < First && Begin != llvm::StringRef::npos; ++L)
    Begin = Text.find('\n', Begin) + 1;
  size_t End = Begin;
  for (unsigned L = First; L <= Last && End < Text.size(); ++L) {
    size_t NL = Text.find('\n', End);
    End = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
  }
  llvm::StringRef Lines = Begin < Text.size() ? Text.slice(Begin, End) : "";
  return llvm::utohexstr(
      llvm::xxh3_64bits(std::to_string(First) + "-" + std::to_string(Last) + "\n" + Lines.str()),
      /*LowerCase=*/true);
}

// ---- The review, as posted or written --------------------------------------

json::Value toJson(const Review &R) {
  json::Array Comments;
  for (const Comment &C : R.Comments)
    Comments.push_back(json::Object{{"key", C.Key},
                                    {"anchor", C.Anchor},
                                    {"path", C.Path},
                                    {"line", C.Line},
                                    {"start_line", C.StartLine},
                                    {"body", C.Body}});
  return json::Object{{"libtorch_tidy_review", 1}, {"platform", R.Platform}, {"api", R.Api},
                      {"repo", R.Repo},           {"number", R.Number},     {"commit", R.Commit},
                      {"body", R.Body},           {"comments", std::move(Comments)},
                      {"exit", R.Exit},           {"builds", R.Builds},
                      {"scope", R.Scope ? json::Value(json::Array(*R.Scope)) : json::Value(nullptr)}};
}

bool fromJSON(const json::Value &V, Comment &C, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("key", C.Key) && O.mapOptional("anchor", C.Anchor) && O.map("path", C.Path) &&
         O.map("line", C.Line) &&
         O.map("start_line", C.StartLine) && O.map("body", C.Body);
}

bool fromJSON(const json::Value &V, Review &R, json::Path P) {
  json::ObjectMapper O(V, P);
  int Version = 0;
  return O && O.map("libtorch_tidy_review", Version) && Version == 1 && O.map("platform", R.Platform) &&
         O.map("api", R.Api) && O.map("repo", R.Repo) && O.map("number", R.Number) &&
         O.map("commit", R.Commit) && O.map("body", R.Body) && O.map("comments", R.Comments) &&
         O.map("exit", R.Exit) && O.mapOptional("builds", R.Builds) && O.mapOptional("scope", R.Scope);
}

// ---- From findings to comments ----------------------------------------------

namespace {

/// The fix-it as the new text of whole lines [First, Last] of the finding's
/// file; none when it touches another file or an unchanged line.
struct LineSuggestion {
  unsigned First = 0, Last = 0;
  std::string Text; // without the last line ending
};

std::optional<LineSuggestion> suggestionFor(const Finding &F, SourceCache &Sources,
                                            const ChangedLines &Changed, const std::string &CanonicalFile) {
  if (F.Fix.empty())
    return std::nullopt;
  ReportContext Ctx;
  Ctx.Sources = &Sources;
  std::vector<RdSuggestion> Parts = rdSuggestions(F, Ctx);
  if (Parts.size() != F.Fix.size())
    return std::nullopt;
  LineSuggestion S{F.Loc.Line, F.Loc.Line, ""};
  for (const RdSuggestion &P : Parts) {
    S.First = std::min(S.First, P.Start.Line);
    S.Last = std::max(S.Last, P.End.Line);
  }
  for (unsigned L = S.First; L <= S.Last; ++L)
    if (!Changed.contains(CanonicalFile, L))
      return std::nullopt;
  const llvm::MemoryBuffer *Buf = Sources.get(F.Loc.File);
  if (!Buf)
    return std::nullopt;
  llvm::StringRef Text = Buf->getBuffer();
  // Byte offsets of the first line's start and the last line's end.
  size_t Begin = 0;
  for (unsigned L = 1; L < S.First; ++L)
    Begin = Text.find('\n', Begin) + 1;
  size_t End = Begin;
  for (unsigned L = S.First; L <= S.Last; ++L) {
    size_t NL = Text.find('\n', End);
    End = NL == llvm::StringRef::npos ? Text.size() : NL + 1;
  }
  std::vector<Replacement> Shifted;
  for (const Replacement &R : F.Fix) {
    if (R.Offset < Begin || R.Offset + R.Length > End)
      return std::nullopt;
    Replacement C = R;
    C.Offset -= unsigned(Begin);
    Shifted.push_back(C);
  }
  llvm::sort(Shifted, [](const Replacement &A, const Replacement &B) { return A.Offset < B.Offset; });
  auto New = applyReplacements(Text.slice(Begin, End), Shifted);
  if (!New) {
    llvm::consumeError(New.takeError());
    return std::nullopt;
  }
  S.Text = llvm::StringRef(*New).drop_back(llvm::StringRef(*New).ends_with("\n") ? 1 : 0).str();
  return S;
}

} // namespace

std::string relativeTo(llvm::StringRef File, llvm::StringRef Root) { return displayPath(File, Root); }

std::string canonicalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return std::string(Real);
  return makeAbsolute(Path);
}

namespace {

std::string findingText(const Finding &F, llvm::StringRef Root) {
  std::string Link = docsLink(F.Check);
  std::string Out = "**" + F.Level + ":** " + F.Message + " (" +
                    (Link.empty() ? "`" + F.Check + "`" : "[" + F.Check + "](" + Link + ")") + ")";
  for (const Note &N : F.Notes)
    Out += "\n\nnote: " +
           (N.Loc.File.empty() ? std::string()
                               : "`" + relativeTo(N.Loc.File, Root) + ":" + std::to_string(N.Loc.Line) + "`: ") +
           N.Message;
  return Out;
}

} // namespace

Review buildReview(const std::string &Platform, const FindingsModel &M, const ChangedLines &Changed,
                   unsigned Cap, const std::string &Builds) {
  Review R;
  R.Platform = Platform;
  R.Builds = Builds;
  llvm::StringRef Root = Changed.TopLevel;
  std::vector<std::string> Elsewhere; // not inline: outside the changed lines, or over the cap
  size_t OutsideLines = 0, OverCap = 0;
  for (const Finding &F : M.Findings) {
    std::string Canonical = canonicalPath(F.Loc.File);
    std::string Path = relativeTo(Canonical, Root);
    std::string Item = "- `" + Path + ":" + std::to_string(F.Loc.Line) + "`: " + F.Message + " (`" + F.Check + "`)";
    if (!Changed.contains(Canonical, F.Loc.Line)) {
      ++OutsideLines;
      Elsewhere.push_back(Item + " (an unchanged line the change affects)");
      continue;
    }
    if (R.Comments.size() >= Cap) {
      ++OverCap;
      Elsewhere.push_back(Item);
      continue;
    }
    Comment C;
    C.Key = F.Fingerprint;
    C.Path = Path;
    C.Line = int(F.Loc.Line);
    C.Body = findingText(F, Root);
    unsigned First = F.Loc.Line, Last = F.Loc.Line; // the lines the comment is on
    if (auto S = suggestionFor(F, *M.Sources, Changed, Canonical)) {
      First = S->First;
      Last = S->Last;
      if (Platform == "github") {
        C.Line = int(S->Last);
        C.StartLine = S->First < S->Last ? int(S->First) : 0;
        C.Body += "\n\n```suggestion\n" + S->Text + "\n```";
      } else {
        C.Body += llvm::formatv("\n\n```suggestion:-{0}+{1}\n{2}\n```", F.Loc.Line - S->First,
                                S->Last - F.Loc.Line, S->Text)
                      .str();
      }
    }
    if (const llvm::MemoryBuffer *Buf = M.Sources->get(F.Loc.File))
      C.Anchor = anchorOf(Buf->getBuffer(), First, Last);
    C.Body += "\n\n" + marker(C.Key, C.Anchor);
    R.Comments.push_back(std::move(C));
  }
  std::string Body = summaryMarker(Builds) + "\n**libtorch-tidy** (`" + Builds + "`): ";
  if (M.Findings.empty())
    Body += "no findings in this change.";
  else
    Body += countOf(M.Findings.size(), "finding") + " in this change, " +
            countOf(R.Comments.size(), "inline comment") + ".";
  if (!M.Failures.empty())
    Body += "\n\n" + countOf(M.Failures.size(), "translation unit") + " could not be analysed:\n" +
            llvm::join(llvm::map_range(M.Failures,
                                       [](const UnitFailure &U) { return "- `" + U.File + "`: " + U.Reason; }),
                       "\n");
  if (!M.Crashes.empty())
    Body += "\n\n" + countOf(M.Crashes.size(), "check") + " crashed (the other checks' findings are reported):\n" +
            llvm::join(llvm::map_range(M.Crashes,
                                       [](const UnitCrash &C) {
                                         return "- `" + C.Crash.Check + "` on `" + C.File + "`: " + C.Crash.Signal +
                                                " (crash report: `" + C.Crash.Report + "`)";
                                       }),
                       "\n");
  if (!Elsewhere.empty()) {
    Body += "\n\n";
    if (OverCap)
      Body += countOf(OverCap, "finding") + " over the limit of " + std::to_string(Cap) +
              " inline comments" + (OutsideLines ? " and " : "");
    if (OutsideLines)
      Body += countOf(OutsideLines, "finding") + " on unchanged lines";
    Body += ":\n" + llvm::join(Elsewhere, "\n");
  }
  R.Body = Body;
  return R;
}

} // namespace libtorch_tidy
