//===--- ReviewCommand.cpp - Findings of a change as a code review --------===//
//
//   analysis (Analysis.h, always against a base revision, as --diff)
//     -> a Review: one inline comment per finding on a changed line (warning,
//        notes, a link to the check's page, the fix-it as a suggestion when it
//        touches only changed lines), the others and those over the cap
//        summarised in the body
//     -> posted (GitHub: one pull-request review; GitLab: one discussion per
//        comment and one summary note), or written as a file (--write-review)
//        that a privileged job posts (--post-review).
//
// Every comment ends with a hidden marker holding the finding's fingerprint
// (Baseline.h, relative to the repository). A re-run lists the earlier
// comments first: a finding already commented is updated in place (not
// posted again), an earlier comment whose finding is gone is marked resolved.
// GitHub receives all new comments in one request (a review is created whole
// or not at all); on GitLab each discussion is one request, and a retry after
// a failure finds the ones already posted by their markers.
//
//===----------------------------------------------------------------------===//
#include "ReviewCommand.h"
#include "Analysis.h"
#include "AtomicWrite.h"
#include "AnalysisFlags.h"
#include "AnalyzeCommand.h"
#include "Fixes.h"
#include "Http.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/xxhash.h"
#include <set>

namespace libtorch_tidy {
namespace cl = llvm::cl;
namespace json = llvm::json;

namespace {

const char Overview[] =
    "libtorch-tidy review: the findings of a change as a pull-request review\n\n"
    "Analyses the translation units a change touches (as --diff) and posts each finding as an\n"
    "inline comment with its fix-it as a suggestion: a GitHub pull-request review or GitLab\n"
    "merge-request discussions. The platform, token, repository, request number and API URL\n"
    "come from the CI environment (GITHUB_*, CI_*) or the flags. Exit status: 0 no findings,\n"
    "1 findings, 2 usage or environment error or a translation unit not analysed, 3 the\n"
    "platform's API refused or was unreachable, 4 a check crashed, 5 findings and some\n"
    "translation units not analysed.\n";

struct ReviewOptions : AnalysisFlags, CrossUnitFlag {
  cl::opt<std::string> Platform{"platform",
                                cl::desc("github or gitlab (default: from $GITHUB_ACTIONS or $GITLAB_CI)"),
                                cl::value_desc("name"), cl::cat(driverCategory())};
  cl::opt<std::string> ApiUrl{"api-url",
                              cl::desc("REST API base URL (default: $GITHUB_API_URL or "
                                       "https://api.github.com; $CI_API_V4_URL)"),
                              cl::value_desc("url"), cl::cat(driverCategory())};
  cl::opt<std::string> Repo{"repo",
                            cl::desc("GitHub owner/name or GitLab project id or path (default: "
                                     "$GITHUB_REPOSITORY; $CI_PROJECT_ID)"),
                            cl::value_desc("repo"), cl::cat(driverCategory())};
  cl::opt<unsigned> Number{"pr",
                           cl::desc("Pull or merge request number (default: the event's; "
                                    "$CI_MERGE_REQUEST_IID)"),
                           cl::value_desc("N"), cl::init(0), cl::cat(driverCategory())};
  cl::opt<std::string> Commit{"commit",
                              cl::desc("The request's head commit the comments are on (default: the "
                                       "event's head; $CI_COMMIT_SHA; HEAD)"),
                              cl::value_desc("sha"), cl::cat(driverCategory())};
  cl::opt<std::string> TokenEnv{"token-env",
                                cl::desc("Environment variable holding the API token (default: "
                                         "GITHUB_TOKEN; GITLAB_TOKEN)"),
                                cl::value_desc("name"), cl::cat(driverCategory())};
  cl::opt<unsigned> MaxComments{"max-comments",
                                cl::desc("Inline comments at most; the other findings are listed in "
                                         "the review's body (default: 25)"),
                                cl::value_desc("N"), cl::init(25), cl::cat(driverCategory())};
  cl::opt<std::string> WriteReview{"write-review",
                                   cl::desc("Write the review to FILE instead of posting it (the "
                                            "untrusted job of a fork's pull request)"),
                                   cl::value_desc("file"), cl::cat(driverCategory())};
  cl::opt<std::string> PostReview{"post-review",
                                  cl::desc("Post the review FILE that --write-review wrote (no "
                                           "analysis; the privileged workflow_run job)"),
                                  cl::value_desc("file"), cl::cat(driverCategory())};
};

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
std::string marker(llvm::StringRef Key, llvm::StringRef Anchor, bool Resolved = false) {
  return ("<!-- libtorch-tidy: " + Key + (Anchor.empty() ? "" : " at " + Anchor) + (Resolved ? " resolved" : "") +
          " -->")
      .str();
}

struct Marker {
  std::string Key, Anchor; // Anchor empty: written by an earlier version
  bool Resolved = false;
};
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

struct Comment {
  std::string Key;  // the finding's fingerprint
  std::string Anchor; // the text of the lines it is on (anchorOf)
  std::string Path; // relative to the repository, '/' separators
  int Line = 0;
  int StartLine = 0; // GitHub: first line of a multi-line comment (0: one line)
  std::string Body;
};

struct Review {
  std::string Platform; // github | gitlab
  std::string Api, Repo;
  int Number = 0;
  std::string Commit; // head
  std::string Body;
  std::vector<Comment> Comments;
  int Exit = ExitClean; // the analysis's
  // The builds analysed (their directories relative to the repository), the
  // summary's identity.
  std::string Builds;
  // The files the analysis spoke for (relative to the repository): only an
  // earlier comment on one of them may be resolved. None: every file (a
  // review file of an earlier version).
  std::optional<std::vector<std::string>> Scope;
  bool inScope(llvm::StringRef Path) const { return !Scope || llvm::is_contained(*Scope, Path); }
};

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

std::string relativeTo(llvm::StringRef File, llvm::StringRef Root) { return displayPath(File, Root); }

std::string canonicalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return std::string(Real);
  return makeAbsolute(Path);
}

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

// ---- The platforms ------------------------------------------------------------

struct ApiError {
  std::string Message;
};

std::string urlEncode(llvm::StringRef S) {
  std::string Out;
  for (char C : S) {
    if (llvm::isAlnum(C) || C == '-' || C == '_' || C == '.' || C == '~')
      Out += C;
    else
      Out += "%" + llvm::utohexstr((unsigned char)C, /*LowerCase=*/false, /*Width=*/2);
  }
  return Out;
}

class Client {
public:
  Client(const Review &R, std::string Token) : R(R), Token(std::move(Token)) {}
  std::optional<ApiError> Error;

  /// The response's JSON; none after an error (kept in Error).
  std::optional<json::Value> call(llvm::StringRef Method, llvm::StringRef Path, std::optional<json::Value> Body = {}) {
    if (Error)
      return std::nullopt;
    HttpRequest Q;
    Q.Method = Method.str();
    Q.Url = llvm::StringRef(R.Api).rtrim('/').str() + Path.str();
    if (R.Platform == "github")
      Q.Headers = {"Authorization: Bearer " + Token, "Accept: application/vnd.github+json",
                   "X-GitHub-Api-Version: 2022-11-28", "User-Agent: libtorch-tidy"};
    else
      Q.Headers = {"PRIVATE-TOKEN: " + Token, "User-Agent: libtorch-tidy"};
    if (Body)
      llvm::raw_string_ostream(Q.Body) << *Body;
    HttpResponse A = httpRequest(Q);
    std::string What = (Method + " " + Path.split('?').first).str();
    if (A.Status == 0) {
      Error = ApiError{"cannot reach " + R.Api + ": " + A.Error};
      return std::nullopt;
    }
    if (A.Status >= 200 && A.Status < 300) {
      if (llvm::StringRef(A.Body).trim().empty())
        return json::Value(nullptr);
      auto V = json::parse(A.Body);
      if (!V) {
        Error = ApiError{What + ": the answer is not JSON (" + llvm::toString(V.takeError()) + ")"};
        return std::nullopt;
      }
      return std::move(*V);
    }
    std::string Detail;
    if (auto V = json::parse(A.Body)) {
      if (auto *O = V->getAsObject()) {
        if (auto M = O->getString("message"))
          Detail = M->str();
        if (auto *Errs = O->getArray("errors"))
          for (const json::Value &E : *Errs) {
            if (auto S = E.getAsString())
              Detail += ": " + S->str();
            else if (auto *EO = E.getAsObject())
              if (auto M = EO->getString("message"))
                Detail += ": " + M->str();
          }
      }
    } else {
      llvm::consumeError(V.takeError());
    }
    if (!Detail.empty())
      Detail = " (" + Detail + ")";
    std::string Name = R.Platform == "github" ? "GitHub" : "GitLab";
    if (A.Status == 401)
      Error = ApiError{Name + " rejected the token (HTTP 401)" + Detail + ": check the token's variable"};
    else if (A.Status == 403)
      Error = ApiError{"the token may not comment on " + R.Repo + " (HTTP 403)" + Detail +
                       ": a fork's pull request gets a read-only token; write the review with --write-review "
                       "and post it with --post-review from a workflow_run job"};
    else if (A.Status == 404)
      Error = ApiError{What + ": not found (HTTP 404)" + Detail + ": check the repository and the request number"};
    else if (A.Status == 422 || A.Status == 400)
      Error = ApiError{Name + " refused " + What + " (HTTP " + std::to_string(A.Status) + ")" + Detail +
                       ": a comment is on a line outside the request's diff; is the checkout at its head commit?"};
    else
      Error = ApiError{What + ": HTTP " + std::to_string(A.Status) + Detail};
    return std::nullopt;
  }

  /// Every item of a paginated list.
  std::optional<std::vector<json::Value>> list(llvm::StringRef Path) {
    std::vector<json::Value> Items;
    for (unsigned Page = 1; Page <= 100; ++Page) {
      auto V = call("GET", (Path + (Path.contains('?') ? "&" : "?") + "per_page=100&page=" + llvm::Twine(Page)).str());
      if (!V)
        return std::nullopt;
      json::Array *A = V->getAsArray();
      if (!A) {
        Error = ApiError{"GET " + Path.str() + ": not a list"};
        return std::nullopt;
      }
      size_t N = A->size();
      for (json::Value &Item : *A)
        Items.push_back(std::move(Item));
      if (N < 100)
        break;
    }
    return Items;
  }

private:
  const Review &R;
  std::string Token;
};

std::string stringAt(const json::Object &O, llvm::StringRef Key) {
  auto S = O.getString(Key);
  return S ? S->str() : std::string();
}

/// The body of an earlier comment once resolved: its finding is gone, or
/// its lines changed and it is reported again on the new ones (\p Moved).
std::string resolvedBody(llvm::StringRef Old, const Marker &M, llvm::StringRef Commit, bool Moved) {
  // The earlier text without its marker and without its suggestion (a
  // resolved comment offers nothing to apply).
  llvm::StringRef Before = Old.split("<!-- libtorch-tidy:").first.split("\n\n```suggestion").first.rtrim();
  std::string Head = Moved ? "**Moved**: at " + Commit.str() +
                                 " the finding's lines changed; it is reported again on its new lines."
                           : "**Resolved**: no longer reported at " + Commit.str() + ".";
  return Head + "\n\n<details><summary>Earlier</summary>\n\n" + Before.str() + "\n</details>\n\n" +
         marker(M.Key, M.Anchor, true);
}

struct PostCounts {
  size_t Posted = 0, Updated = 0, Resolved = 0, Kept = 0;
  size_t Moved = 0;      // of Resolved: reported again on new lines (also counted in Posted)
  size_t OutOfScope = 0; // earlier comments on files this run did not analyse, left as they are
  bool SummaryEdited = false;
};

/// An earlier comment of ours, as the platform lists it.
struct Earlier {
  Marker M;
  std::string Body, Path;
  bool Resolved = false; // GitHub: by its marker; GitLab: the discussion's state
  int64_t Id = 0;        // GitHub: the comment; GitLab: the first note
  std::string Discussion; // GitLab
};

/// What a run does with the earlier comments and its own.
struct Reconciled {
  std::vector<size_t> Post;                    // R.Comments to post
  std::vector<std::pair<size_t, size_t>> Keep; // (earlier, comment) on the same lines: edited in place
  std::vector<std::pair<size_t, bool>> Resolve; // (earlier, moved)
  size_t OutOfScope = 0;
};

/// A comment stays where it is only while its finding is on the same lines
/// with the same text (its anchor): a suggestion sized for other lines would
/// duplicate or drop a line where it is applied, and the fingerprint alone
/// (check, file, line text) may name a copy of the line elsewhere. When the
/// lines moved or changed, the finding is posted anew on the head commit and
/// the earlier comment resolved as moved. A comment whose finding is gone is
/// resolved when the run's builds reach its file.
Reconciled reconcile(const Review &R, const std::vector<Earlier> &Before) {
  Reconciled Out;
  std::vector<bool> Claimed(Before.size(), false);
  std::set<std::string> Current;
  for (size_t C = 0; C < R.Comments.size(); ++C) {
    const Comment &Cm = R.Comments[C];
    Current.insert(Cm.Key);
    std::optional<size_t> Match;
    for (size_t E = 0; E < Before.size(); ++E) {
      const Earlier &B = Before[E];
      if (Claimed[E] || B.M.Key != Cm.Key || (!B.M.Anchor.empty() && B.M.Anchor != Cm.Anchor))
        continue;
      if (!Match || (Before[*Match].Resolved && !B.Resolved))
        Match = E;
    }
    if (Match) {
      Claimed[*Match] = true;
      Out.Keep.push_back({*Match, C});
    } else {
      Out.Post.push_back(C);
    }
  }
  for (size_t E = 0; E < Before.size(); ++E) {
    const Earlier &B = Before[E];
    if (Claimed[E] || B.Resolved)
      continue;
    bool Moved = Current.count(B.M.Key) > 0;
    if (!Moved && !R.inScope(B.Path)) {
      ++Out.OutOfScope;
      continue;
    }
    Out.Resolve.push_back({E, Moved});
  }
  return Out;
}

std::optional<ApiError> postGitHub(const Review &R, const std::string &Token, PostCounts &Counts) {
  Client C(R, Token);
  std::string Pull = "/repos/" + R.Repo + "/pulls/" + std::to_string(R.Number);
  // Earlier comments and reviews of ours.
  std::vector<Earlier> Before;
  auto Comments = C.list(Pull + "/comments");
  if (!Comments)
    return C.Error;
  for (const json::Value &V : *Comments)
    if (const json::Object *O = V.getAsObject()) {
      std::string Body = stringAt(*O, "body");
      if (auto M = markerOf(Body))
        Before.push_back({*M, Body, stringAt(*O, "path"), M->Resolved, O->getInteger("id").value_or(0), ""});
    }
  // The summary of these builds: the latest review that carries it.
  std::optional<int64_t> SummaryId;
  std::string SummaryBody;
  auto Reviews = C.list(Pull + "/reviews");
  if (!Reviews)
    return C.Error;
  const std::string Marker = summaryMarker(R.Builds);
  for (const json::Value &V : *Reviews)
    if (const json::Object *O = V.getAsObject()) {
      std::string Body = stringAt(*O, "body");
      if (llvm::StringRef(Body).contains(Marker)) {
        SummaryId = O->getInteger("id");
        SummaryBody = Body;
      }
    }
  Reconciled Plan = reconcile(R, Before);
  Counts.OutOfScope = Plan.OutOfScope;

  // New comments in one review: created whole or not at all.
  json::Array New;
  for (size_t I : Plan.Post) {
    const Comment &Cm = R.Comments[I];
    json::Object O{{"path", Cm.Path}, {"line", Cm.Line}, {"side", "RIGHT"}, {"body", Cm.Body}};
    if (Cm.StartLine) {
      O["start_line"] = Cm.StartLine;
      O["start_side"] = "RIGHT";
    }
    New.push_back(std::move(O));
  }
  // The first review carries the summary; a later one only new comments
  // (a review is the one way to post several at once), and the summary is
  // edited in place.
  if (!SummaryId || !New.empty()) {
    Counts.Posted = New.size();
    std::string Body = SummaryId ? commentsMarker(R.Builds) + "\n**libtorch-tidy** (`" + R.Builds + "`): " +
                                       countOf(Counts.Posted, "new comment") + " at " + R.Commit +
                                       " (the summary above is kept up to date)."
                                 : R.Body;
    if (!C.call("POST", Pull + "/reviews",
                json::Object{{"commit_id", R.Commit}, {"event", "COMMENT"}, {"body", Body}, {"comments", std::move(New)}}))
      return C.Error;
  }
  if (SummaryId && SummaryBody != R.Body) {
    if (!C.call("PUT", Pull + "/reviews/" + std::to_string(*SummaryId), json::Object{{"body", R.Body}}))
      return C.Error;
    Counts.SummaryEdited = true;
  }
  // Earlier comments: updated in place, or resolved.
  for (auto [E, I] : Plan.Keep) {
    const Comment &Cm = R.Comments[I];
    if (Before[E].Body == Cm.Body) {
      ++Counts.Kept;
      continue;
    }
    if (!C.call("PATCH", "/repos/" + R.Repo + "/pulls/comments/" + std::to_string(Before[E].Id),
                json::Object{{"body", Cm.Body}}))
      return C.Error;
    ++Counts.Updated;
  }
  for (auto [E, Moved] : Plan.Resolve) {
    if (!C.call("PATCH", "/repos/" + R.Repo + "/pulls/comments/" + std::to_string(Before[E].Id),
                json::Object{{"body", resolvedBody(Before[E].Body, Before[E].M, R.Commit, Moved)}}))
      return C.Error;
    ++Counts.Resolved;
    Counts.Moved += Moved;
  }
  return std::nullopt;
}

std::optional<ApiError> postGitLab(const Review &R, const std::string &Token, PostCounts &Counts) {
  Client C(R, Token);
  std::string Mr = "/projects/" + urlEncode(R.Repo) + "/merge_requests/" + std::to_string(R.Number);
  // The diff's commits, which a position names.
  auto Info = C.call("GET", Mr);
  if (!Info)
    return C.Error;
  std::string Base, Start, Head;
  if (const json::Object *O = Info->getAsObject())
    if (const json::Object *Refs = O->getObject("diff_refs")) {
      Base = stringAt(*Refs, "base_sha");
      Start = stringAt(*Refs, "start_sha");
      Head = stringAt(*Refs, "head_sha");
    }
  if (Head.empty())
    return ApiError{"GET " + Mr + ": no diff_refs in the merge request"};
  if (!R.Commit.empty() && R.Commit != Head)
    return ApiError{"the merge request's head is " + Head + ", the analysis is of " + R.Commit +
                    ": a newer push is under review"};

  std::vector<Earlier> Before;
  std::optional<int64_t> SummaryNote;
  std::string SummaryBody;
  auto Discussions = C.list(Mr + "/discussions");
  if (!Discussions)
    return C.Error;
  for (const json::Value &V : *Discussions) {
    const json::Object *D = V.getAsObject();
    const json::Array *Notes = D ? D->getArray("notes") : nullptr;
    if (!Notes || Notes->empty() || !(*Notes)[0].getAsObject())
      continue;
    const json::Object &First = *(*Notes)[0].getAsObject();
    std::string Body = stringAt(First, "body");
    const json::Object *Position = First.getObject("position");
    if (auto M = markerOf(Body))
      Before.push_back({*M, Body, Position ? stringAt(*Position, "new_path") : std::string(),
                        First.getBoolean("resolved").value_or(false) || M->Resolved,
                        First.getInteger("id").value_or(0), stringAt(*D, "id")});
    else if (llvm::StringRef(Body).contains(summaryMarker(R.Builds))) {
      SummaryNote = First.getInteger("id");
      SummaryBody = Body;
    }
  }
  Reconciled Plan = reconcile(R, Before);
  Counts.OutOfScope = Plan.OutOfScope;
  for (size_t I : Plan.Post) {
    const Comment &Cm = R.Comments[I];
    json::Object Position{{"position_type", "text"}, {"base_sha", Base}, {"start_sha", Start},
                          {"head_sha", Head},        {"new_path", Cm.Path}, {"old_path", Cm.Path},
                          {"new_line", Cm.Line}};
    if (!C.call("POST", Mr + "/discussions", json::Object{{"body", Cm.Body}, {"position", std::move(Position)}}))
      return C.Error;
    ++Counts.Posted;
  }
  for (auto [E, I] : Plan.Keep) {
    const Earlier &B = Before[E];
    const Comment &Cm = R.Comments[I];
    if (B.Body == Cm.Body && !B.Resolved) {
      ++Counts.Kept;
      continue;
    }
    if (B.Body != Cm.Body && !C.call("PUT", Mr + "/discussions/" + B.Discussion + "/notes/" + std::to_string(B.Id),
                                     json::Object{{"body", Cm.Body}}))
      return C.Error;
    if (B.Resolved && !C.call("PUT", Mr + "/discussions/" + B.Discussion + "?resolved=false"))
      return C.Error;
    ++Counts.Updated;
  }
  for (auto [E, Moved] : Plan.Resolve) {
    const Earlier &B = Before[E];
    // A moved comment loses its suggestion (sized for lines that changed).
    if (Moved && !C.call("PUT", Mr + "/discussions/" + B.Discussion + "/notes/" + std::to_string(B.Id),
                         json::Object{{"body", resolvedBody(B.Body, B.M, R.Commit, true)}}))
      return C.Error;
    if (!C.call("PUT", Mr + "/discussions/" + B.Discussion + "?resolved=true"))
      return C.Error;
    ++Counts.Resolved;
    Counts.Moved += Moved;
  }
  if (!SummaryNote) {
    if (!C.call("POST", Mr + "/notes", json::Object{{"body", R.Body}}))
      return C.Error;
  } else if (SummaryBody != R.Body) {
    if (!C.call("PUT", Mr + "/notes/" + std::to_string(*SummaryNote), json::Object{{"body", R.Body}}))
      return C.Error;
    Counts.SummaryEdited = true;
  }
  return std::nullopt;
}

// ---- The environment --------------------------------------------------------

std::string env(const char *Name) {
  auto V = llvm::sys::Process::GetEnv(Name);
  return V ? *V : std::string();
}

/// The pull request of $GITHUB_EVENT_PATH: number, head and base commits.
struct GitHubEvent {
  unsigned Number = 0;
  std::string Head, Base;
};
GitHubEvent readGitHubEvent() {
  GitHubEvent E;
  std::string Path = env("GITHUB_EVENT_PATH");
  if (Path.empty())
    return E;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return E;
  auto V = json::parse((*Buf)->getBuffer());
  if (!V) {
    llvm::consumeError(V.takeError());
    return E;
  }
  const json::Object *O = V->getAsObject();
  const json::Object *P = O ? O->getObject("pull_request") : nullptr;
  if (!P)
    return E;
  E.Number = unsigned(P->getInteger("number").value_or(0));
  if (const json::Object *H = P->getObject("head"))
    E.Head = stringAt(*H, "sha");
  if (const json::Object *B = P->getObject("base"))
    E.Base = stringAt(*B, "sha");
  return E;
}

std::string gitOutput(std::vector<std::string> Args) {
  auto Git = llvm::sys::findProgramByName("git");
  if (!Git)
    return "";
  Args.insert(Args.begin(), "git");
  ProcessResult R = runProcess(*Git, Args, 60);
  return R.ExitCode == 0 ? llvm::StringRef(R.Output).trim().str() : std::string();
}

/// The token from its variable; an error line when it is not set.
llvm::Expected<std::string> tokenFor(const Review &R, const std::string &Var) {
  std::string Name = !Var.empty() ? Var : R.Platform == "github" ? "GITHUB_TOKEN" : "GITLAB_TOKEN";
  std::string Token = env(Name.c_str());
  if (Token.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no API token: $%s is not set (or name another with --token-env)",
                                   Name.c_str());
  return Token;
}

int post(const Review &R, const std::string &TokenVar, bool Quiet) {
  auto Token = tokenFor(R, TokenVar);
  if (!Token)
    return fail(Token.takeError());
  PostCounts Counts;
  std::optional<ApiError> E =
      R.Platform == "github" ? postGitHub(R, *Token, Counts) : postGitLab(R, *Token, Counts);
  if (E) {
    llvm::errs() << "libtorch-tidy: error: " << E->Message << "\n";
    return ExitApi;
  }
  if (!Quiet)
    llvm::errs() << "libtorch-tidy: review of " << R.Repo << (R.Platform == "github" ? "#" : "!") << R.Number
                 << ": " << countOf(Counts.Posted, "new comment") << ", " << Counts.Updated << " updated, "
                 << Counts.Kept << " unchanged, " << Counts.Resolved << " resolved"
                 << (Counts.Moved ? " (" + std::to_string(Counts.Moved) + " moved: posted again on their new lines)"
                                  : std::string())
                 << (Counts.OutOfScope ? ", " + std::to_string(Counts.OutOfScope) +
                                             " on files outside this analysis left as they are"
                                       : std::string())
                 << (Counts.SummaryEdited ? "; summary edited" : "") << "\n";
  return R.Exit;
}

} // namespace

int runReviewCommand(int Argc, const char **Argv) {
  ReviewOptions Opt;
  if (auto Error = parseDriverCommandLine(Argc, Argv, Overview))
    return fail(*Error);
  const std::string Cwd = currentDir();

  // The privileged half of the split mode: post what the analysis wrote.
  if (!Opt.PostReview.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Opt.PostReview);
    if (!Buf)
      return fail("--post-review " + Opt.PostReview + ": " + Buf.getError().message());
    auto V = json::parse((*Buf)->getBuffer());
    Review R;
    json::Path::Root Root;
    if (!V)
      return fail("--post-review " + Opt.PostReview + ": not JSON: " + llvm::toString(V.takeError()));
    if (!fromJSON(*V, R, Root) || (R.Platform != "github" && R.Platform != "gitlab") || R.Repo.empty() ||
        !R.Number || R.Api.empty() ||
        !llvm::all_of(R.Comments, [](const Comment &C) { return !C.Path.empty() && C.Line && markerOf(C.Body); }))
      return fail("--post-review " + Opt.PostReview + ": not a review written by --write-review");
    // The file comes from an untrusted job: it names neither the API nor
    // the repository that the privileged job posts to when they are known.
    if (!Opt.ApiUrl.empty())
      R.Api = Opt.ApiUrl;
    if (!Opt.Repo.empty())
      R.Repo = Opt.Repo;
    else if (R.Platform == "github" && !env("GITHUB_REPOSITORY").empty())
      R.Repo = env("GITHUB_REPOSITORY");
    if (R.Platform == "github" && Opt.ApiUrl.empty() && !env("GITHUB_API_URL").empty())
      R.Api = env("GITHUB_API_URL");
    return post(R, Opt.TokenEnv, Opt.Quiet);
  }

  // Where the review goes.
  Review R;
  R.Platform = Opt.Platform;
  if (R.Platform.empty())
    R.Platform = env("GITHUB_ACTIONS") == "true" ? "github" : env("GITLAB_CI") == "true" ? "gitlab" : "";
  if (R.Platform.empty())
    return fail("--platform: not in GitHub Actions or GitLab CI; name github or gitlab");
  if (R.Platform != "github" && R.Platform != "gitlab")
    return fail("--platform " + R.Platform + ": not github or gitlab");
  std::string BaseRev;
  if (R.Platform == "github") {
    GitHubEvent E = readGitHubEvent();
    R.Api = !Opt.ApiUrl.empty() ? Opt.ApiUrl : !env("GITHUB_API_URL").empty() ? env("GITHUB_API_URL") : "https://api.github.com";
    R.Repo = !Opt.Repo.empty() ? Opt.Repo : env("GITHUB_REPOSITORY");
    R.Number = int(Opt.Number ? Opt.Number : E.Number);
    R.Commit = !Opt.Commit.empty() ? Opt.Commit : E.Head;
    BaseRev = E.Base;
    if (R.Repo.empty())
      return fail("--repo: no repository ($GITHUB_REPOSITORY is not set)");
    if (!R.Number)
      return fail("--pr: no pull request number (the event $GITHUB_EVENT_PATH is not a pull request's)");
  } else {
    R.Api = !Opt.ApiUrl.empty() ? Opt.ApiUrl : env("CI_API_V4_URL");
    R.Repo = !Opt.Repo.empty() ? Opt.Repo : env("CI_PROJECT_ID");
    if (Opt.Number)
      R.Number = int(Opt.Number);
    else
      llvm::StringRef(env("CI_MERGE_REQUEST_IID")).getAsInteger(10, R.Number);
    R.Commit = !Opt.Commit.empty() ? Opt.Commit : env("CI_COMMIT_SHA");
    BaseRev = env("CI_MERGE_REQUEST_DIFF_BASE_SHA");
    if (R.Api.empty())
      return fail("--api-url: no API URL ($CI_API_V4_URL is not set)");
    if (R.Repo.empty())
      return fail("--repo: no project ($CI_PROJECT_ID is not set)");
    if (!R.Number)
      return fail("--pr: no merge request ($CI_MERGE_REQUEST_IID is not set: run in a merge request pipeline)");
  }
  if (R.Commit.empty())
    R.Commit = gitOutput({"rev-parse", "HEAD"});
  if (Opt.WriteReview.empty()) {
    // Fail before the analysis when nothing could be posted.
    auto Token = tokenFor(R, Opt.TokenEnv);
    if (!Token)
      return fail(Token.takeError());
  } else if (auto Why = [&]() -> std::optional<std::string> {
               std::string Dir = llvm::sys::path::parent_path(makeAbsolute(Opt.WriteReview)).str();
               if (!llvm::sys::fs::is_directory(Dir))
                 return "--write-review " + Opt.WriteReview + ": directory " + Dir + " does not exist";
               return std::nullopt;
             }()) {
    return fail(*Why);
  }

  // The analysis, always of the change.
  auto Found = Opt.options(Cwd);
  if (!Found)
    return fail(Found.takeError());
  AnalysisOptions AOpt = std::move(*Found);
  if (!AOpt.Diff) {
    // The pull request's base: its merge base with the head.
    std::string MergeBase = BaseRev.empty() ? "" : gitOutput({"merge-base", BaseRev, "HEAD"});
    AOpt.Diff = !MergeBase.empty() ? MergeBase : BaseRev;
  }
  auto Analysis = analyseProject(std::move(AOpt), Opt.CrossTU);
  if (!Analysis)
    return fail(Analysis.takeError());
  const AnalysisPlan *Plan = &(*Analysis)->Plan;
  FindingsModel &Model = (*Analysis)->Model;
  if ((*Analysis)->CrossUnits && !Opt.Quiet)
    printCrossUnits(*(*Analysis)->CrossUnits, llvm::errs());
  filterByBaseline(Model, nullptr, Plan->Changed->TopLevel);
  printFailures(Model, llvm::errs());
  if (!Opt.Quiet)
    printSummary(*Plan, (*Analysis)->Run, Model, llvm::errs());

  std::string Platform = R.Platform;
  // The builds (their directories relative to the repository) name the
  // summary; the files their units reach are those whose earlier comments
  // this run may resolve.
  const std::string &Top = Plan->Changed->TopLevel;
  std::vector<std::string> BuildNames;
  for (const std::string &Db : Plan->Databases)
    BuildNames.push_back(relativeTo(canonicalPath(llvm::sys::path::parent_path(Db)), Top));
  Review Built = buildReview(Platform, Model, *Plan->Changed, Opt.MaxComments, llvm::join(BuildNames, ", "));
  Built.Scope.emplace();
  for (const auto &F : Plan->Reached)
    Built.Scope->push_back(relativeTo(F.getKey(), Top));
  llvm::sort(*Built.Scope);
  Built.Api = R.Api;
  Built.Repo = R.Repo;
  Built.Number = R.Number;
  Built.Commit = R.Commit;
  Built.Exit = !Model.Failures.empty()  ? (Model.Findings.empty() ? ExitError : ExitFindingsIncomplete)
               : !Model.Crashes.empty() ? ExitCheckCrashed
               : Model.Findings.empty() ? ExitClean
                                        : ExitFindings;

  if (!Opt.WriteReview.empty()) {
    std::string Text;
    llvm::raw_string_ostream(Text) << llvm::formatv("{0:2}", toJson(Built)) << "\n";
    if (auto E = writeFileAtomically(makeAbsolute(Opt.WriteReview), Text))
      return fail(std::move(E));
    if (!Opt.Quiet)
      llvm::errs() << "libtorch-tidy: wrote the review (" << countOf(Built.Comments.size(), "comment") << ") to "
                   << Opt.WriteReview << "\n";
    return Built.Exit;
  }
  return post(Built, Opt.TokenEnv, Opt.Quiet);
}

} // namespace libtorch_tidy
