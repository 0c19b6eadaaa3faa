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
// Review.h builds the review and ReviewPlatforms.h posts it; this file is the
// command: its options, the CI environment, the analysis (analyseProject).
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
#include "AnalysisFlags.h"
#include "AnalyzeCommand.h"
#include "AtomicWrite.h"
#include "Process.h"
#include "Review.h"
#include "ReviewPlatforms.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

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
    E.Head = H->getString("sha").value_or("").str();
  if (const json::Object *B = P->getObject("base"))
    E.Base = B->getString("sha").value_or("").str();
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
  Built.Exit = analysisExit(!Model.Failures.empty(), !Model.Crashes.empty(), !Model.Findings.empty());

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
