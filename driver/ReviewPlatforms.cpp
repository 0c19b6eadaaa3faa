//===--- ReviewPlatforms.cpp - Posting a review: GitHub, GitLab ------------===//
#include "ReviewPlatforms.h"
#include "Analysis.h"
#include "AnalysisFlags.h"
#include "Http.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

namespace libtorch_tidy {
namespace json = llvm::json;

namespace {

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

} // namespace

llvm::Expected<std::string> tokenFor(const Review &R, const std::string &Var) {
  std::string Name = !Var.empty() ? Var : R.Platform == "github" ? "GITHUB_TOKEN" : "GITLAB_TOKEN";
  std::string Token = llvm::sys::Process::GetEnv(Name).value_or("");
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

} // namespace libtorch_tidy
