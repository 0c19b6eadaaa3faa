//===--- LspCommand.cpp - libtorch-tidy lsp -------------------------------===//
#include "lsp/LspCommand.h"
#include "lsp/JsonRpc.h"
#include "lsp/Server.h"

#include "CompileDatabase.h"
#include "Pch.h"
#include "Toolchain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <vector>

namespace libtorch_tidy {
namespace cl = llvm::cl;

namespace {

/// `lsp --prepare-pch FILE`: builds the precompiled LibTorch header of FILE's
/// translation unit in the results cache, where the analyze command looks for
/// it. The analyze command builds one only when two translation units of its
/// run share it, which a run on one file never has; the server runs this
/// first, as a child process of its own (so that cancelling kills it). The key
/// is computed as the analyze command computes it (Pch.h: the compiler beside
/// clang-tidy and its --version, the command, the extra arguments).
int preparePch(const std::string &File, const std::string &BuildDir, const std::string &ClangTidy,
               const std::vector<std::string> &ExtraArgs) {
  auto Tidy = findClangTidy(ClangTidy);
  if (!Tidy) {
    llvm::errs() << "libtorch-tidy: error: " << llvm::toString(Tidy.takeError()) << "\n";
    return 2;
  }
  std::string Clang = clangBesideTidy(*Tidy);
  auto DbPath = findCompileDatabase(BuildDir);
  if (Clang.empty() || !DbPath) {
    if (!DbPath)
      llvm::consumeError(DbPath.takeError());
    return 0;
  }
  auto Db = loadCompileDatabase(*DbPath);
  if (!Db) {
    llvm::errs() << "libtorch-tidy: error: " << llvm::toString(Db.takeError()) << "\n";
    return 2;
  }
  const CompileCommand *Command = nullptr;
  for (const CompileCommand &C : Db->Commands)
    if (C.File == File)
      Command = &C;
  if (!Command)
    return 0;
  std::string CacheDir;
  if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CACHE_DIR"))
    CacheDir = *Env;
  if (CacheDir.empty()) {
    llvm::SmallString<256> P(Db->Directory);
    llvm::sys::path::append(P, ".libtorch-tidy-cache");
    CacheDir = std::string(P);
  }
  llvm::SmallString<256> Abs(CacheDir);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, true);
  if (llvm::sys::fs::create_directories(Abs))
    return 0;
  std::string ClangId = Clang + "\n" + runProcess(Clang, {Clang, "--version"}, 60).Output;
  PchPlan Plan = planPch(*Command, ExtraArgs, ClangId);
  if (!Plan.Usable)
    return 0;
  PchStore Store(std::string(Abs), Clang);
  if (Store.exists(Plan))
    return 0;
  PchStore::Built B = Store.get(Plan);
  if (!B.Ok)
    llvm::errs() << "libtorch-tidy: precompiled header not built: " << B.Error << "\n";
  return 0; // without it the analysis parses in full
}

} // namespace

int runLspCommand(int Argc, const char **Argv) {
  cl::OptionCategory Category("libtorch-tidy lsp options");
  cl::opt<std::string> BuildDir{"p", cl::desc("Build directory holding compile_commands.json "
                                              "(default: the workspace's, or its build/)"),
                                cl::value_desc("dir"), cl::cat(Category)};
  cl::opt<std::string> Plugin{"plugin", cl::desc("LibTorchTidy.so to load"), cl::value_desc("path"),
                              cl::cat(Category)};
  cl::opt<std::string> ClangTidy{"clang-tidy", cl::desc("clang-tidy to run"), cl::value_desc("path"),
                                 cl::cat(Category)};
  cl::opt<std::string> Checks{"checks", cl::desc("Checks (default: the .clang-tidy's, else "
                                                 "'-*,torch-*')"),
                              cl::value_desc("globs"), cl::cat(Category)};
  cl::list<std::string> ExtraArgs{"extra-arg", cl::desc("Extra compiler argument (repeatable)"),
                                  cl::value_desc("arg"), cl::cat(Category)};
  cl::list<std::string> Load{"load", cl::desc("Also load this clang-tidy module (repeatable)"),
                             cl::value_desc("module.so"), cl::cat(Category)};
  cl::opt<unsigned> Jobs{"j", cl::desc("Files analysed at once (default: 1)"), cl::init(1),
                         cl::Prefix, cl::cat(Category)};
  cl::opt<unsigned> QueueLimit{"queue-limit",
                               cl::desc("Files waiting for an analysis before the oldest is "
                                        "dropped (default: 8)"),
                               cl::init(8), cl::cat(Category)};
  cl::opt<bool> NoPch{"no-pch", cl::desc("Parse every file in full (no precompiled LibTorch header)"),
                      cl::cat(Category)};
  cl::opt<std::string> PreparePch{"prepare-pch", cl::Hidden,
                                  cl::desc("Build the precompiled header of FILE and exit"),
                                  cl::value_desc("file")};
  cl::HideUnrelatedOptions(Category);
  std::string Self = selfPath();
  std::vector<const char *> Args = {Self.c_str()};
  for (int I = 1; I < Argc; ++I)
    Args.push_back(Argv[I]);
  if (!cl::ParseCommandLineOptions(int(Args.size()), Args.data(),
                                   "libtorch-tidy lsp: a language server (stdio) publishing the "
                                   "torch- findings\n"
                                   "Settings may also come from initializationOptions: "
                                   "buildDirectory, plugin, clangTidy, checks, extraArgs, load, jobs, "
                                   "queueLimit.\n",
                                   &llvm::errs()))
    return 2;

  if (!PreparePch.empty())
    return preparePch(PreparePch, BuildDir, ClangTidy,
                      std::vector<std::string>(ExtraArgs.begin(), ExtraArgs.end()));

  lsp::ServerOptions O;
  O.Self = Self;
  O.BuildDir = BuildDir;
  O.Plugin = Plugin;
  O.ClangTidy = ClangTidy;
  O.Checks = Checks;
  O.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  O.Loads.assign(Load.begin(), Load.end());
  O.Pch = !NoPch;
  O.Jobs = std::max(1u, unsigned(Jobs));
  O.QueueLimit = std::max(1u, unsigned(QueueLimit));
  lsp::Transport T(stdin, stdout);
  lsp::Server S(std::move(O), T);
  return S.run();
}

} // namespace libtorch_tidy
