//===--- Main.cpp - libtorch-tidy: subcommand dispatch --------------------===//
//
//   libtorch-tidy [options] [PATH...]      analyse a project (the default)
//   libtorch-tidy <subcommand> [args...]   a subcommand named in the table
//   (verify: prove a fix-it at run time; merge: one report from the shards';
//   lsp: a language server for editors; review: the findings of a change as
//   a pull-request review; summarize: the linked function summaries of a
//   project, for the analysis across translation units; tidy: clang-tidy on
//   one source inside a build, with the shared precompiled LibTorch header)
//
// A subcommand is added with one row in the table (its name, its run
// function, the line every --help shows for it) and its own
// <Name>Command.{h,cpp} reusing the driver's pieces (Toolchain, CompileDatabase,
// TidyRunner, Fixes, Reports). A first argument that names no subcommand is
// the analysis's (an option or a PATH).
//
//===----------------------------------------------------------------------===//
#include "AnalyzeCommand.h"
#include "MergeCommand.h"
#include "ReviewCommand.h"
#include "SummarizeCommand.h"
#include "TidyCommand.h"
#include "VerifyCommand.h"
#include "lsp/LspCommand.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include <vector>

namespace {
struct Subcommand {
  const char *Name;
  int (*Run)(int Argc, const char **Argv); // Argv[0] is "libtorch-tidy <name>"
  const char *Summary;                     // one line in every --help
};
const std::vector<Subcommand> &subcommands() {
  static const std::vector<Subcommand> Table = {
      {"review", libtorch_tidy::runReviewCommand,
       "the findings of a pull request's change as a GitHub or GitLab review"},
      {"lsp", libtorch_tidy::runLspCommand, "a language server (stdio) publishing the findings to editors"},
      {"tidy", libtorch_tidy::runTidyCommand,
       "clang-tidy on one source inside a build, with the shared precompiled LibTorch header"},
      {"merge", libtorch_tidy::runMergeCommand, "one report from the reports of the shards (--shard)"},
      {"summarize", libtorch_tidy::runSummarizeCommand,
       "the linked function summaries of a project, for the analysis across translation units"},
      {"verify", libtorch_tidy::runVerifyCommand,
       "prove a fix-it at run time: fix a copy of a program, run both, compare memory per iteration"},
  };
  return Table;
}
} // namespace

const std::string &libtorch_tidy::subcommandsHelp() {
  static const std::string Text = [] {
    std::string Out = "\nSUBCOMMANDS (libtorch-tidy <subcommand> --help for each):\n\n"
                      "  (none)      analyse a project: libtorch-tidy [options] [PATH...]\n";
    for (const Subcommand &S : subcommands())
      Out += "  " + std::string(S.Name) + std::string(12 - std::string(S.Name).size(), ' ') + S.Summary + "\n";
    return Out;
  }();
  return Text;
}

int main(int Argc, const char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  // Every command's --help ends with the list of subcommands.
  static llvm::cl::extrahelp Subcommands(libtorch_tidy::subcommandsHelp());
  if (Argc > 1)
    for (const Subcommand &S : subcommands())
      if (llvm::StringRef(Argv[1]) == S.Name) {
        if (S.Run != libtorch_tidy::runVerifyCommand)
          libtorch_tidy::hideVerifySubcommand();
        return S.Run(Argc - 1, Argv + 1);
      }
  libtorch_tidy::hideVerifySubcommand();
  return libtorch_tidy::runAnalyzeCommand(Argc, Argv);
}
