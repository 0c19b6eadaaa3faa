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
// A subcommand is added with one row in Subcommands and its own
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
#include "llvm/Support/InitLLVM.h"
#include <vector>

namespace {
struct Subcommand {
  const char *Name;
  int (*Run)(int Argc, const char **Argv); // Argv[0] is "libtorch-tidy <name>"
};
const std::vector<Subcommand> &subcommands() {
  static const std::vector<Subcommand> Table = {
      {"verify", libtorch_tidy::runVerifyCommand},
      {"merge", libtorch_tidy::runMergeCommand},
      {"lsp", libtorch_tidy::runLspCommand},
      {"review", libtorch_tidy::runReviewCommand},
      {"summarize", libtorch_tidy::runSummarizeCommand},
      {"tidy", libtorch_tidy::runTidyCommand},
  };
  return Table;
}
} // namespace

int main(int Argc, const char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  if (Argc > 1)
    for (const Subcommand &S : subcommands())
      if (llvm::StringRef(Argv[1]) == S.Name)
        return S.Run(Argc - 1, Argv + 1);
  return libtorch_tidy::runAnalyzeCommand(Argc, Argv);
}
