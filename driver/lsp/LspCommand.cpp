//===--- LspCommand.cpp - libtorch-tidy lsp -------------------------------===//
#include "lsp/LspCommand.h"
#include "lsp/JsonRpc.h"
#include "lsp/Server.h"

#include "Toolchain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <vector>

namespace libtorch_tidy {
namespace cl = llvm::cl;

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
  cl::opt<unsigned> Jobs{"j", cl::desc("Files analysed at once (default: 1)"), cl::init(1),
                         cl::Prefix, cl::cat(Category)};
  cl::opt<unsigned> QueueLimit{"queue-limit",
                               cl::desc("Files waiting for an analysis before the oldest is "
                                        "dropped (default: 8)"),
                               cl::init(8), cl::cat(Category)};
  cl::HideUnrelatedOptions(Category);
  std::string Self = selfPath();
  std::vector<const char *> Args = {Self.c_str()};
  for (int I = 1; I < Argc; ++I)
    Args.push_back(Argv[I]);
  if (!cl::ParseCommandLineOptions(int(Args.size()), Args.data(),
                                   "libtorch-tidy lsp: a language server (stdio) publishing the "
                                   "torch- findings\n"
                                   "Settings may also come from initializationOptions: "
                                   "buildDirectory, plugin, clangTidy, checks, extraArgs, jobs, "
                                   "queueLimit.\n",
                                   &llvm::errs()))
    return 2;

  lsp::ServerOptions O;
  O.Self = Self;
  O.BuildDir = BuildDir;
  O.Plugin = Plugin;
  O.ClangTidy = ClangTidy;
  O.Checks = Checks;
  O.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  O.Jobs = std::max(1u, unsigned(Jobs));
  O.QueueLimit = std::max(1u, unsigned(QueueLimit));
  lsp::Transport T(stdin, stdout);
  lsp::Server S(std::move(O), T);
  return S.run();
}

} // namespace libtorch_tidy
