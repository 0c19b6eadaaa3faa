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
// A subcommand is added with one row in the table here (its name, its run
// function), one in Subcommands.cpp (the line every --help shows) and its own
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
#include <cassert>
#include <vector>

namespace {
struct Subcommand {
  const char *Name;
  int (*Run)(int Argc, const char **Argv); // Argv[0] is "libtorch-tidy <name>"
};
// The run function of each subcommand that Subcommands.cpp lists (its name and
// its line in --help live there, in the driver's library).
const std::vector<Subcommand> &subcommands() {
  static const std::vector<Subcommand> Table = {
      {"review", libtorch_tidy::runReviewCommand},       {"lsp", libtorch_tidy::runLspCommand},
      {"tidy", libtorch_tidy::runTidyCommand},           {"merge", libtorch_tidy::runMergeCommand},
      {"summarize", libtorch_tidy::runSummarizeCommand}, {"verify", libtorch_tidy::runVerifyCommand},
  };
  assert(Table.size() == libtorch_tidy::subcommandInfos().size() && "Subcommands.cpp and Main.cpp list the same");
  return Table;
}
} // namespace

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
