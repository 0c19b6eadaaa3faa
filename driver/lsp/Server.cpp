//===--- Server.cpp -------------------------------------------------------===//
#include "lsp/Server.h"
#include "lsp/ChildProcess.h"
#include "lsp/Positions.h"

#include "AnalyzeCommand.h"
#include "CompileDatabase.h"
#include "Findings.h"
#include "Fixes.h"
#include "Prefilter.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace libtorch_tidy::lsp {

namespace json = llvm::json;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

constexpr const char *AnalyzeCommand = "libtorch-tidy.analyze";

std::string readFile(llvm::StringRef Path, bool *Ok = nullptr) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (Ok)
    *Ok = bool(Buf);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

std::string canonical(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!fs::real_path(Path, Real))
    return std::string(Real);
  llvm::SmallString<256> P(Path);
  fs::make_absolute(P);
  path::remove_dots(P, true);
  return std::string(P);
}

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

/// The driver's JSON report (Reports.cpp, "version": 1) back into findings,
/// paths made absolute against the directory the child ran in.
std::vector<Finding> parseReport(const json::Value &Report, llvm::StringRef Cwd) {
  auto Abs = [&](llvm::StringRef File) {
    if (File.empty() || path::is_absolute(File))
      return File.str();
    llvm::SmallString<256> P(Cwd);
    path::append(P, File);
    path::remove_dots(P, true);
    return std::string(P);
  };
  auto Loc = [&](const json::Object &O) {
    Location L;
    L.File = Abs(O.getString("file").value_or(""));
    L.Line = unsigned(O.getInteger("line").value_or(0));
    L.Column = unsigned(O.getInteger("column").value_or(0));
    return L;
  };
  std::vector<Finding> Out;
  const json::Object *Doc = Report.getAsObject();
  const json::Array *Items = Doc ? Doc->getArray("findings") : nullptr;
  if (!Items)
    return Out;
  for (const json::Value &V : *Items) {
    const json::Object *O = V.getAsObject();
    if (!O)
      continue;
    Finding F;
    F.Loc = Loc(*O);
    F.Check = O->getString("check").value_or("").str();
    F.Level = O->getString("severity").value_or("warning").str();
    F.Message = O->getString("message").value_or("").str();
    if (const json::Array *Notes = O->getArray("notes"))
      for (const json::Value &N : *Notes)
        if (const json::Object *NO = N.getAsObject())
          F.Notes.push_back(Note{NO->getString("message").value_or("").str(), Loc(*NO)});
    if (const json::Array *Fix = O->getArray("fix"))
      for (const json::Value &R : *Fix)
        if (const json::Object *RO = R.getAsObject())
          F.Fix.push_back(Replacement{Abs(RO->getString("file").value_or("")),
                                      unsigned(RO->getInteger("offset").value_or(0)),
                                      unsigned(RO->getInteger("length").value_or(0)),
                                      RO->getString("replacement").value_or("").str()});
    Out.push_back(std::move(F));
  }
  return Out;
}

/// Why the child could not analyse the file: the unit's own line ("not
/// analysed: FILE: REASON", with the fix when the driver names one), else the
/// last "libtorch-tidy: error: ..." line of its stderr.
std::string childError(llvm::StringRef Err) {
  std::string Error, Unit;
  while (!Err.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Err) = Err.split('\n');
    Line = Line.trim();
    if (Line.consume_front("libtorch-tidy: error: "))
      Error = Line.str();
    else if (Line.consume_front("libtorch-tidy: not analysed: "))
      Unit = Line.str();
    else if (!Unit.empty() && Line.consume_front("libtorch-tidy: fix: "))
      Unit += "; fix: " + Line.str();
  }
  return Unit.empty() ? Error : Unit;
}

/// The checks that crashed on the file while the others ran (the child's
/// exit status 4): "check crashed: UNIT: CHECK: SIGNAL; ..." lines, each
/// with the crash report that follows it.
std::string childCrashes(llvm::StringRef Err) {
  std::string Crashes;
  bool InCrash = false;
  while (!Err.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Err) = Err.split('\n');
    Line = Line.trim();
    if (Line.consume_front("libtorch-tidy: check crashed: ")) {
      Crashes += (Crashes.empty() ? "" : "; ") + Line.str();
      InCrash = true;
    } else if (InCrash && Line.consume_front("libtorch-tidy: crash report: ")) {
      Crashes += " (crash report: " + Line.str() + ")";
    } else {
      InCrash = false;
    }
  }
  return Crashes;
}

} // namespace

struct Server::Impl {
  Impl(ServerOptions O, Transport &T) : Opt(std::move(O)), Out(T) {
    llvm::SmallString<256> C;
    fs::current_path(C);
    Cwd = std::string(C);
  }

  ServerOptions Opt;
  Transport &Out;
  std::string Cwd;

  // ---- state, all under M ----
  std::mutex M;
  std::condition_variable Cv;
  bool Initialized = false, ShutdownRequested = false, Stopping = false;
  bool Utf16 = true, ClientProgress = false;
  std::string Root;

  std::shared_ptr<CompileDatabase> Db;
  std::string DbError; // why there is none
  llvm::sys::TimePoint<> DbTime;
  bool DbMessageShown = false;

  struct Document {
    std::string Uri, Path;
    bool Dirty = false;        // the buffer differs from what was analysed
    std::string StaleWhy;      // nonempty: the findings shown are stale
    bool Analysed = false;
    std::vector<Finding> Findings;
    std::string Failure;       // the analysis could not run to the end
    std::shared_ptr<LineIndex> Text; // the file as analysed
  };
  std::map<std::string, Document> Docs; // by path as the client names it
  llvm::StringMap<bool> OutsideNotified;

  struct Job {
    std::string Unit;          // the translation unit to run
    bool Header = false;       // Docs key is a header reached through Unit
    bool Pending = false, Running = false, Cancelled = false;
    int Pid = 0;
    std::vector<json::Value> Waiting;        // executeCommand ids for the pending run
    std::vector<json::Value> RunningWaiting; // ... for the running one
    std::string Token;                       // $/progress of the running one
  };
  std::map<std::string, Job> Jobs;
  std::deque<std::string> Queue;
  std::vector<std::thread> Workers;
  unsigned NextToken = 0;

  // ---- messages ----
  void log(const llvm::Twine &Text) {
    llvm::errs() << "libtorch-tidy lsp: " << Text << "\n";
    llvm::errs().flush();
  }
  void showMessage(int Type, const std::string &Text) {
    Out.notify("window/showMessage", json::Object{{"type", Type}, {"message", Text}});
  }

  // ---- configuration ----
  void applySettings(const json::Object &S) {
    auto Str = [&](std::initializer_list<const char *> Keys, std::string &To) {
      for (const char *K : Keys)
        if (auto V = S.getString(K))
          To = V->str();
    };
    Str({"buildDirectory", "compileCommandsDir"}, Opt.BuildDir);
    Str({"plugin", "pluginPath"}, Opt.Plugin);
    Str({"clangTidy", "clangTidyPath"}, Opt.ClangTidy);
    Str({"checks"}, Opt.Checks);
    if (const json::Array *A = S.getArray("extraArgs")) {
      Opt.ExtraArgs.clear();
      for (const json::Value &V : *A)
        if (auto Sv = V.getAsString())
          Opt.ExtraArgs.push_back(Sv->str());
    }
    if (const json::Array *A = S.getArray("load")) {
      Opt.Loads.clear();
      for (const json::Value &V : *A)
        if (auto Sv = V.getAsString())
          Opt.Loads.push_back(Sv->str());
    }
    if (auto J = S.getInteger("jobs"); J && *J > 0)
      Opt.Jobs = unsigned(*J);
    if (auto Q = S.getInteger("queueLimit"); Q && *Q > 0)
      Opt.QueueLimit = unsigned(*Q);
  }

  std::string resolveAgainstRoot(const std::string &P) {
    if (P.empty() || path::is_absolute(P) || Root.empty())
      return P;
    llvm::SmallString<256> R(Root);
    path::append(R, P);
    return std::string(R);
  }

  /// (Re)loads compile_commands.json when it is new or changed. Under M.
  void refreshDatabase() {
    std::string JsonPath;
    if (!Opt.BuildDir.empty()) {
      auto P = findCompileDatabase(resolveAgainstRoot(Opt.BuildDir));
      if (!P) {
        DbError = llvm::toString(P.takeError());
        Db.reset();
        return;
      }
      JsonPath = *P;
    } else {
      for (const char *Sub : {"", "build"}) {
        llvm::SmallString<256> P(Root.empty() ? Cwd : Root);
        path::append(P, Sub, "compile_commands.json");
        if (fs::exists(P)) {
          JsonPath = std::string(P);
          break;
        }
      }
      if (JsonPath.empty()) {
        auto P = findCompileDatabase("");
        if (!P) {
          DbError = llvm::toString(P.takeError());
          Db.reset();
          return;
        }
        JsonPath = *P;
      }
    }
    fs::file_status St;
    fs::status(JsonPath, St);
    if (Db && Db->Path == JsonPath && St.getLastModificationTime() == DbTime)
      return;
    auto Loaded = loadCompileDatabase(JsonPath);
    if (!Loaded) {
      DbError = llvm::toString(Loaded.takeError());
      Db.reset();
      return;
    }
    Db = std::make_shared<CompileDatabase>(std::move(*Loaded));
    DbTime = St.getLastModificationTime();
    DbError.clear();
  }

  /// The translation unit that analyses Path: itself, or for a header one
  /// that includes it. Empty when none.
  std::pair<std::string, bool> unitFor(const std::string &Path) {
    if (!Db)
      return {"", false};
    std::string Want = canonical(Path);
    for (const CompileCommand &C : Db->Commands)
      if (C.File == Path || canonical(C.File) == Want)
        return {C.File, false};
    IncludeScanner Scanner;
    for (const CompileCommand &C : Db->Commands) {
      IncludeScan S = Scanner.scan(C);
      for (const std::string &F : S.ProjectFiles)
        if (F == Path || canonical(F) == Want)
          return {C.File, true};
    }
    return {"", false};
  }

  // ---- diagnostics ----
  json::Object diagnostic(const Document &D, const Finding &F) {
    const LineIndex &T = *D.Text;
    unsigned Begin = T.offset(F.Loc.Line, F.Loc.Column), End = Begin;
    unsigned LineEnd = T.lineEnd(T.line(Begin));
    while (End < LineEnd && isIdentChar(T.text()[End]))
      ++End;
    if (End == Begin && End < LineEnd)
      ++End;
    json::Object Diag{{"range", T.range(Begin, End)},
                      {"severity", F.Level == "error" ? 1 : F.Level == "warning" ? 2 : 3},
                      {"source", "libtorch-tidy"},
                      {"code", F.Check}};
    std::string Message = F.Message;
    if (!D.StaleWhy.empty())
      Message += " (stale: " + D.StaleWhy + ")";
    Diag["message"] = Message;
    std::string Link = docsLink(F.Check);
    if (!Link.empty())
      Diag["codeDescription"] = json::Object{{"href", Link}};
    json::Array Related;
    for (const Note &N : F.Notes) {
      if (N.Loc.File.empty())
        continue;
      json::Object Range;
      if (N.Loc.File == D.Path) {
        unsigned O = T.offset(N.Loc.Line, N.Loc.Column);
        Range = T.range(O, O);
      } else {
        LineIndex Other(readFile(N.Loc.File), Utf16);
        unsigned O = Other.offset(N.Loc.Line, N.Loc.Column);
        Range = Other.range(O, O);
      }
      Related.push_back(json::Object{
          {"location", json::Object{{"uri", pathToUri(N.Loc.File)}, {"range", std::move(Range)}}},
          {"message", N.Message}});
    }
    if (!Related.empty())
      Diag["relatedInformation"] = std::move(Related);
    return Diag;
  }

  void publish(const Document &D) {
    json::Array Diags;
    if (D.Analysed) {
      for (const Finding &F : D.Findings)
        Diags.push_back(diagnostic(D, F));
      if (!D.Failure.empty()) {
        json::Value Start = json::Object{{"line", 0}, {"character", 0}};
        Diags.push_back(json::Object{{"range", json::Object{{"start", Start}, {"end", Start}}},
                                     {"severity", 1},
                                     {"source", "libtorch-tidy"},
                                     {"message", D.Failure}});
      }
    }
    Out.notify("textDocument/publishDiagnostics",
               json::Object{{"uri", D.Uri}, {"diagnostics", std::move(Diags)}});
  }

  void markStale(Document &D, const std::string &Why) {
    if (!D.Analysed || D.StaleWhy == Why)
      return;
    D.StaleWhy = Why;
    publish(D);
  }

  // ---- scheduling (under M) ----
  void answerCancelled(std::vector<json::Value> &Ids, llvm::StringRef Why) {
    for (json::Value &Id : Ids)
      Out.replyError(std::move(Id), RequestCancelled, Why);
    Ids.clear();
  }

  /// Stops the file's run and drops its pending one.
  void cancel(const std::string &Path, llvm::StringRef Why) {
    auto It = Jobs.find(Path);
    if (It == Jobs.end())
      return;
    Job &J = It->second;
    if (J.Running) {
      J.Cancelled = true;
      if (J.Pid)
        killGroup(J.Pid);
    }
    if (J.Pending) {
      J.Pending = false;
      Queue.erase(std::remove(Queue.begin(), Queue.end(), Path), Queue.end());
      answerCancelled(J.Waiting, Why);
    }
    if (auto D = Docs.find(Path); D != Docs.end())
      markStale(D->second, "the analysis was cancelled");
  }

  /// A new analysis of the document at Path (its file as saved on disk).
  /// False when the file is in no translation unit (nothing scheduled).
  bool schedule(const std::string &Path, std::optional<json::Value> RequestId) {
    refreshDatabase();
    auto [Unit, Header] = unitFor(Path);
    if (Unit.empty()) {
      if (!OutsideNotified[Path]) {
        OutsideNotified[Path] = true;
        std::string Text =
            Db ? "libtorch-tidy: " + path::filename(Path).str() + " is not in " + Db->Path +
                     " and no translation unit there includes it; it is not analysed"
               : "libtorch-tidy: no compile_commands.json (" + DbError +
                     "); set buildDirectory in the initialization options";
        showMessage(3, Text);
      }
      if (RequestId)
        Out.replyError(std::move(*RequestId), RequestFailed, "not in the compile database");
      return false;
    }
    Job &J = Jobs[Path];
    if (J.Running && !J.Cancelled) {
      // A newer save: the running analysis reads an outdated file.
      J.Cancelled = true;
      if (J.Pid)
        killGroup(J.Pid);
      answerCancelled(J.RunningWaiting, "superseded by a newer analysis");
    }
    J.Unit = Unit;
    J.Header = Header;
    if (RequestId)
      J.Waiting.push_back(std::move(*RequestId));
    if (!J.Pending) {
      J.Pending = true;
      Queue.push_back(Path);
      while (Queue.size() > Opt.QueueLimit) {
        std::string Dropped = Queue.front();
        Queue.pop_front();
        Job &D = Jobs[Dropped];
        D.Pending = false;
        answerCancelled(D.Waiting, "dropped: too many files waiting for an analysis");
        log("queue full: dropped the analysis of " + Dropped);
        if (auto Doc = Docs.find(Dropped); Doc != Docs.end())
          markStale(Doc->second, "its analysis was dropped (queue full); save it again");
      }
    }
    Cv.notify_all();
    return true;
  }

  std::vector<std::string> childArgs(const Job &J, const std::string &Path) {
    std::vector<std::string> A = {Opt.Self, "--format=json", "--quiet", "--all", "-j1"};
    if (Db)
      A.push_back("-p=" + Db->Directory);
    if (!Opt.Plugin.empty())
      A.push_back("--plugin=" + resolveAgainstRoot(Opt.Plugin));
    if (!Opt.ClangTidy.empty())
      A.push_back("--clang-tidy=" + resolveAgainstRoot(Opt.ClangTidy));
    if (!Opt.Checks.empty())
      A.push_back("--checks=" + Opt.Checks);
    for (const std::string &E : Opt.ExtraArgs)
      A.push_back("--extra-arg=" + E);
    for (const std::string &M : Opt.Loads)
      A.push_back("--load=" + resolveAgainstRoot(M));
    if (J.Header)
      A.push_back("--header-filter=(^|/)" + llvm::Regex::escape(path::filename(Path)) + "$");
    A.push_back(J.Unit);
    return A;
  }

  void progress(const std::string &Token, json::Object Value) {
    if (!Token.empty())
      Out.notify("$/progress", json::Object{{"token", Token}, {"value", std::move(Value)}});
  }

  void worker() {
    std::unique_lock<std::mutex> L(M);
    for (;;) {
      auto Ready = [&]() -> std::optional<std::string> {
        for (const std::string &P : Queue)
          if (!Jobs[P].Running)
            return P;
        return std::nullopt;
      };
      Cv.wait(L, [&] { return Stopping || Ready(); });
      if (Stopping)
        return;
      std::string Path = *Ready();
      Queue.erase(std::find(Queue.begin(), Queue.end(), Path));
      Job &J = Jobs[Path];
      J.Pending = false;
      J.Running = true;
      J.Cancelled = false;
      J.RunningWaiting = std::move(J.Waiting);
      J.Waiting.clear();
      J.Token.clear();
      if (ClientProgress) {
        J.Token = "libtorch-tidy/" + std::to_string(++NextToken);
        Out.request("libtorch-tidy-progress-" + std::to_string(NextToken),
                    "window/workDoneProgress/create", json::Object{{"token", J.Token}});
        progress(J.Token, json::Object{{"kind", "begin"},
                                       {"title", "libtorch-tidy"},
                                       {"message", "analysing " + path::filename(Path).str()},
                                       {"cancellable", true}});
      }
      std::vector<std::string> Args = childArgs(J, Path);
      std::string Token = J.Token;
      L.unlock();

      auto Start = std::chrono::steady_clock::now();
      llvm::SmallString<128> OutFile, ErrFile;
      fs::createTemporaryFile("libtorch-tidy-lsp", "json", OutFile);
      fs::createTemporaryFile("libtorch-tidy-lsp", "err", ErrFile);
      log("analysing " + Path + (Args.back() != Path ? " through " + Args.back() : ""));
      int Exit = -1;
      std::string SpawnError;
      // Runs one child to its end (or its kill); false when cancelled.
      auto RunChild = [&](const std::vector<std::string> &Argv) {
        auto Pid = spawnGroup(Argv, OutFile, ErrFile);
        if (!Pid) {
          SpawnError = llvm::toString(Pid.takeError());
          return true;
        }
        L.lock();
        J.Pid = *Pid;
        if (J.Cancelled || Stopping)
          killGroup(*Pid);
        L.unlock();
        awaitExit(*Pid);
        L.lock();
        J.Pid = 0;
        bool Cancelled = J.Cancelled || Stopping;
        L.unlock();
        Exit = reap(*Pid);
        return !Cancelled;
      };
      bool Go = true;
      if (Opt.Pch) {
        std::vector<std::string> Prepare = {Opt.Self, "lsp", "--prepare-pch=" + Args.back()};
        for (const std::string &A : Args)
          if (llvm::StringRef(A).starts_with("-p=") || llvm::StringRef(A).starts_with("--clang-tidy=") ||
              llvm::StringRef(A).starts_with("--extra-arg="))
            Prepare.push_back(A);
        Go = RunChild(Prepare);
        SpawnError.clear();
      }
      if (Go)
        RunChild(Args);
      std::string Report = readFile(OutFile), Err = readFile(ErrFile);
      fs::remove(OutFile);
      fs::remove(ErrFile);
      double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

      L.lock();
      J.Running = false;
      if (J.Cancelled || Stopping) {
        log("cancelled the analysis of " + Path);
        progress(Token, json::Object{{"kind", "end"}, {"message", "cancelled"}});
        answerCancelled(J.RunningWaiting, "cancelled");
        Cv.notify_all();
        continue;
      }
      std::vector<Finding> Findings;
      std::string Failure;
      bool ReportOk = false;
      if (auto V = json::parse(Report)) {
        ReportOk = true;
        Findings = parseReport(*V, Cwd);
      } else {
        llvm::consumeError(V.takeError());
      }
      std::string Want = canonical(Path);
      llvm::erase_if(Findings, [&](const Finding &F) {
        return F.Loc.File != Path && canonical(F.Loc.File) != Want;
      });
      bool CompileErrors = llvm::any_of(Findings, [](const Finding &F) { return F.isCompilerError(); });
      if (!SpawnError.empty()) {
        Failure = "libtorch-tidy could not analyse this file: " + SpawnError;
      } else if (Exit == ExitCheckCrashed && ReportOk) {
        // The other checks' findings stand; the crash is said beside them.
        Failure = "libtorch-tidy: a check crashed: " + childCrashes(Err);
      } else if ((Exit != 0 && Exit != 1) || !ReportOk) {
        std::string Why = childError(Err);
        if (Why.empty())
          Why = Exit >= 128 ? "killed by signal " + std::to_string(Exit - 128)
                            : "exited with " + std::to_string(Exit);
        if (!CompileErrors)
          Failure = "libtorch-tidy could not analyse this file: " + Why;
      }
      log(llvm::formatv("{0}: {1} findings{2} in {3:f1} s", Path, Findings.size(),
                        Failure.empty() ? "" : " (" + Failure + ")", Seconds));
      size_t Count = Findings.size();
      bool Stale = false;
      if (auto D = Docs.find(Path); D != Docs.end()) {
        Document &Doc = D->second;
        Doc.Analysed = true;
        Doc.Findings = std::move(Findings);
        Doc.Failure = Failure;
        Doc.Text = std::make_shared<LineIndex>(readFile(Path), Utf16);
        Doc.StaleWhy = Doc.Dirty ? "the buffer has unsaved changes; save to analyse it" : "";
        Stale = Doc.Dirty;
        publish(Doc);
      }
      progress(Token, json::Object{{"kind", "end"},
                                   {"message", std::to_string(Count) + " findings"}});
      for (json::Value &Id : J.RunningWaiting)
        Out.reply(std::move(Id), json::Object{{"findings", int64_t(Count)},
                                              {"stale", Stale},
                                              {"failure", Failure},
                                              {"seconds", Seconds}});
      J.RunningWaiting.clear();
      Cv.notify_all();
    }
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> L(M);
      Stopping = true;
      for (auto &[Path, J] : Jobs) {
        if (J.Pid)
          killGroup(J.Pid);
        answerCancelled(J.Waiting, "the server is shutting down");
      }
      Queue.clear();
      Cv.notify_all();
    }
    for (std::thread &T : Workers)
      T.join();
    Workers.clear();
  }

  // ---- code actions ----
  json::Object workspaceEdit(const Document &D, const std::map<std::string, std::vector<Replacement>> &Files) {
    json::Object Changes;
    for (const auto &[File, Reps] : Files) {
      std::shared_ptr<LineIndex> T =
          File == D.Path ? D.Text : std::make_shared<LineIndex>(readFile(File), Utf16);
      json::Array Edits;
      for (const Replacement &R : Reps)
        Edits.push_back(json::Object{{"range", T->range(R.Offset, R.Offset + R.Length)},
                                     {"newText", R.Text}});
      Changes[pathToUri(File)] = std::move(Edits);
    }
    return json::Object{{"changes", std::move(Changes)}};
  }

  json::Array codeActions(const json::Object &Params) {
    json::Array Actions;
    const json::Object *TD = Params.getObject("textDocument");
    auto Uri = TD ? TD->getString("uri") : std::nullopt;
    if (!Uri)
      return Actions;
    auto It = Docs.find(uriToPath(*Uri));
    if (It == Docs.end())
      return Actions;
    const Document &D = It->second;
    // Fix-its are offsets into the file as analysed: none when the buffer or
    // the file has changed since.
    if (!D.Analysed || D.Dirty || !D.StaleWhy.empty() || !D.Text || readFile(D.Path) != D.Text->text())
      return Actions;
    const json::Object *Range = Params.getObject("range");
    unsigned FirstLine = 0, LastLine = ~0u;
    if (Range) {
      if (const json::Object *S = Range->getObject("start"))
        FirstLine = unsigned(S->getInteger("line").value_or(0));
      if (const json::Object *E = Range->getObject("end"))
        LastLine = unsigned(E->getInteger("line").value_or(~0u));
    }
    std::vector<std::string> Only;
    if (const json::Object *C = Params.getObject("context"))
      if (const json::Array *O = C->getArray("only"))
        for (const json::Value &K : *O)
          if (auto S = K.getAsString())
            Only.push_back(S->str());
    auto Wanted = [&](llvm::StringRef Kind) {
      if (Only.empty())
        return true;
      for (const std::string &O : Only)
        if (Kind == O || Kind.starts_with(O + "."))
          return true;
      return false;
    };
    const LineIndex &T = *D.Text;
    for (const Finding &F : D.Findings) {
      unsigned Line = T.line(T.offset(F.Loc.Line, F.Loc.Column));
      if (Line < FirstLine || Line > LastLine || !Wanted("quickfix"))
        continue;
      json::Value Diag = json::Array{diagnostic(D, F)};
      if (!F.Fix.empty()) {
        std::map<std::string, std::vector<Replacement>> Files;
        for (const Replacement &R : F.Fix)
          Files[R.File].push_back(R);
        for (auto &[File, Reps] : Files)
          llvm::sort(Reps, [](const Replacement &A, const Replacement &B) { return A.Offset < B.Offset; });
        Actions.push_back(json::Object{{"title", "Apply the fix-it of " + F.Check},
                                       {"kind", "quickfix"},
                                       {"isPreferred", true},
                                       {"diagnostics", Diag},
                                       {"edit", workspaceEdit(D, Files)}});
      }
      if (F.isCompilerError())
        continue;
      llvm::StringRef Text = T.lineText(Line);
      if (Text.ends_with("\\"))
        continue; // a comment would end the macro
      Replacement R{D.Path, 0, 0, ""};
      size_t Open = Text.find("NOLINT(");
      size_t Close = Open == llvm::StringRef::npos ? Open : Text.find(')', Open);
      if (Close != llvm::StringRef::npos) {
        R.Offset = T.offset(Line + 1, unsigned(Close) + 1);
        R.Text = "," + F.Check;
      } else if (Text.contains("NOLINT")) {
        continue;
      } else {
        R.Offset = T.lineEnd(Line);
        R.Text = "  // NOLINT(" + F.Check + ")";
      }
      Actions.push_back(json::Object{{"title", "Suppress " + F.Check + " on this line (NOLINT)"},
                                     {"kind", "quickfix"},
                                     {"diagnostics", std::move(Diag)},
                                     {"edit", workspaceEdit(D, {{D.Path, {R}}})}});
    }
    if (Wanted("source.fixAll")) {
      FixPlan Plan = planFixes(D.Findings);
      if (!Plan.Fixed.empty())
        Actions.push_back(json::Object{
            {"title", "Apply all " + std::to_string(Plan.Fixed.size()) + " libtorch-tidy fix-its"},
            {"kind", "source.fixAll.libtorch-tidy"},
            {"edit", workspaceEdit(D, Plan.Files)}});
    }
    return Actions;
  }

  // ---- the message loop ----
  json::Object initializeResult(const json::Object &Params) {
    if (auto U = Params.getString("rootUri"))
      Root = uriToPath(*U);
    if (Root.empty())
      if (auto P = Params.getString("rootPath"))
        Root = P->str();
    if (const json::Object *Caps = Params.getObject("capabilities")) {
      if (const json::Object *G = Caps->getObject("general"))
        if (const json::Array *E = G->getArray("positionEncodings"))
          for (const json::Value &V : *E)
            if (V.getAsString() == std::optional<llvm::StringRef>("utf-8"))
              Utf16 = false;
      if (const json::Object *W = Caps->getObject("window"))
        ClientProgress = W->getBoolean("workDoneProgress").value_or(false);
    }
    if (const json::Object *Init = Params.getObject("initializationOptions"))
      applySettings(*Init);
    refreshDatabase();
    return json::Object{
        {"capabilities",
         json::Object{
             {"positionEncoding", Utf16 ? "utf-16" : "utf-8"},
             {"textDocumentSync", json::Object{{"openClose", true},
                                               {"change", 2},
                                               {"save", json::Object{{"includeText", false}}}}},
             {"codeActionProvider",
              json::Object{{"codeActionKinds", json::Array{"quickfix", "source.fixAll.libtorch-tidy"}}}},
             {"executeCommandProvider", json::Object{{"commands", json::Array{AnalyzeCommand}}}},
         }},
        {"serverInfo", json::Object{{"name", "libtorch-tidy"}, {"version", toolVersion()}}}};
  }

  std::string docPath(const json::Object &Params) {
    if (const json::Object *TD = Params.getObject("textDocument"))
      if (auto U = TD->getString("uri"))
        return uriToPath(*U);
    return {};
  }

  /// Handles one message; false after `exit`.
  bool handle(const json::Object &Msg, int &ExitCode) {
    auto Method = Msg.getString("method");
    const json::Value *IdP = Msg.get("id");
    std::optional<json::Value> Id;
    if (IdP)
      Id = *IdP;
    if (!Method)
      return true; // a response to one of our requests
    static const json::Object NoParams;
    const json::Object &Params = Msg.getObject("params") ? *Msg.getObject("params") : NoParams;

    if (*Method == "exit") {
      ExitCode = ShutdownRequested ? 0 : 1;
      return false;
    }
    if (*Method == "initialize") {
      json::Object Result;
      {
        std::lock_guard<std::mutex> L(M);
        Result = initializeResult(Params);
        Initialized = true;
      }
      for (unsigned I = 0; I < std::max(1u, Opt.Jobs); ++I)
        Workers.emplace_back([this] { worker(); });
      Out.reply(std::move(*Id), std::move(Result));
      return true;
    }
    if (!Initialized) {
      if (Id)
        Out.replyError(std::move(*Id), ServerNotInitialized, "initialize first");
      return true;
    }
    if (*Method == "shutdown") {
      stopWorkers();
      ShutdownRequested = true;
      Out.reply(std::move(*Id), nullptr);
      return true;
    }
    if (ShutdownRequested) {
      if (Id)
        Out.replyError(std::move(*Id), InvalidRequest, "the server is shutting down");
      return true;
    }

    std::lock_guard<std::mutex> L(M);
    if (*Method == "textDocument/didOpen") {
      const json::Object *TD = Params.getObject("textDocument");
      std::string Path = docPath(Params);
      if (!TD || Path.empty())
        return true;
      Document &D = Docs[Path];
      D = Document();
      D.Uri = TD->getString("uri")->str();
      D.Path = Path;
      bool Ok = false;
      std::string Disk = readFile(Path, &Ok);
      D.Dirty = !Ok || TD->getString("text").value_or("") != Disk;
      schedule(Path, std::nullopt);
    } else if (*Method == "textDocument/didChange") {
      auto It = Docs.find(docPath(Params));
      if (It != Docs.end()) {
        It->second.Dirty = true;
        markStale(It->second, "the buffer has unsaved changes; save to analyse it");
      }
    } else if (*Method == "textDocument/didSave") {
      auto It = Docs.find(docPath(Params));
      if (It != Docs.end()) {
        It->second.Dirty = false;
        schedule(It->first, std::nullopt);
      }
    } else if (*Method == "textDocument/didClose") {
      std::string Path = docPath(Params);
      auto It = Docs.find(Path);
      if (It != Docs.end()) {
        std::string Uri = It->second.Uri;
        Docs.erase(It);
        cancel(Path, "the document was closed");
        Out.notify("textDocument/publishDiagnostics",
                   json::Object{{"uri", Uri}, {"diagnostics", json::Array()}});
      }
    } else if (*Method == "textDocument/codeAction") {
      Out.reply(std::move(*Id), codeActions(Params));
    } else if (*Method == "workspace/executeCommand") {
      const json::Array *Args = Params.getArray("arguments");
      std::string Path;
      if (Params.getString("command") == std::optional<llvm::StringRef>(AnalyzeCommand) && Args &&
          !Args->empty())
        if (auto U = (*Args)[0].getAsString())
          Path = uriToPath(*U);
      if (Path.empty())
        Out.replyError(std::move(*Id), InvalidParams,
                       std::string("expected ") + AnalyzeCommand + " with a document URI");
      else if (!Docs.count(Path))
        Out.replyError(std::move(*Id), InvalidParams, "the document is not open");
      else
        schedule(Path, std::move(*Id));
    } else if (*Method == "$/cancelRequest") {
      const json::Value *Cancelled = Params.get("id");
      if (!Cancelled)
        return true;
      for (auto &[Path, J] : Jobs) {
        bool InRun = llvm::is_contained(J.RunningWaiting, *Cancelled);
        bool InQueue = llvm::is_contained(J.Waiting, *Cancelled);
        if (InRun || InQueue) {
          cancel(Path, "cancelled");
          answerCancelled(J.RunningWaiting, "cancelled");
          break;
        }
      }
    } else if (*Method == "window/workDoneProgress/cancel") {
      auto Token = Params.getString("token");
      for (auto &[Path, J] : Jobs)
        if (Token && J.Running && J.Token == *Token) {
          cancel(Path, "cancelled");
          answerCancelled(J.RunningWaiting, "cancelled");
          break;
        }
    } else if (*Method == "workspace/didChangeConfiguration") {
      if (const json::Object *S = Params.getObject("settings")) {
        if (const json::Object *Mine = S->getObject("libtorch-tidy"))
          applySettings(*Mine);
        else
          applySettings(*S);
        refreshDatabase();
      }
    } else if (Id) {
      Out.replyError(std::move(*Id), MethodNotFound, ("no method " + *Method).str());
    }
    return true;
  }

  int run() {
    int ExitCode = 1; // the end of input without `exit`
    std::string ParseErrorText;
    while (auto Msg = Out.read(ParseErrorText)) {
      const json::Object *O = Msg->getAsObject();
      if (!O) {
        Out.replyError(nullptr, ParseErrorText.empty() ? InvalidRequest : ParseError,
                       ParseErrorText.empty() ? "not a JSON-RPC message" : ParseErrorText);
        continue;
      }
      if (!handle(*O, ExitCode))
        break;
    }
    stopWorkers();
    return ExitCode;
  }
};

Server::Server(ServerOptions Options, Transport &T)
    : P(std::make_unique<Impl>(std::move(Options), T)) {}
Server::~Server() = default;
int Server::run() { return P->run(); }

} // namespace libtorch_tidy::lsp
