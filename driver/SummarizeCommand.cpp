//===--- SummarizeCommand.cpp - libtorch-tidy summarize -------------------===//
//
//   libtorch-tidy summarize [-p BUILD] -o FILE [PATH...]
//
// Runs the summaries pass (Analysis.h: summarizeProject) over the compile
// database and writes the linked summaries to FILE, atomically. Plain
// clang-tidy setups (run-clang-tidy, CMAKE_CXX_CLANG_TIDY) then read it
// through the global option TorchSummaries (docs/cross-function.md); the
// default command does both steps with --cross-tu.
//
//===----------------------------------------------------------------------===//
#include "SummarizeCommand.h"
#include "Analysis.h"
#include "AnalysisFlags.h"
#include "AnalyzeCommand.h"
#include "AtomicWrite.h"
#include "Fixes.h"
#include "Toolchain.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace libtorch_tidy {
namespace cl = llvm::cl;

namespace {
const char Overview[] =
    "libtorch-tidy summarize: the linked function summaries of a project\n\n"
    "Summarises every translation unit of compile_commands.json (under the PATHs, when given)\n"
    "and writes their summaries, linked by USR, to FILE: the file clang-tidy's option\n"
    "TorchSummaries names. Exit status: 0 written, 2 usage or environment error, or a unit\n"
    "that could not be summarised (the file is written without its functions).\n";

struct SummarizeOptions : AnalysisFlags {
  cl::opt<std::string> Output{"output", cl::desc("The linked summaries (JSON)"),
                              cl::value_desc("file"), cl::cat(driverCategory())};
  cl::alias OutputShort{"o", cl::desc("Alias for --output"), cl::aliasopt(Output)};
};
} // namespace

int runSummarizeCommand(int Argc, const char **Argv) {
  SummarizeOptions Opt;
  if (auto Error = parseDriverCommandLine(Argc, Argv, Overview))
    return fail(*Error);
  if (Opt.Output.empty())
    return fail("summarize: -o FILE is required");
  const std::string Cwd = currentDir();
  auto AOpt = Opt.options(Cwd);
  if (!AOpt)
    return fail(AOpt.takeError());
  auto Pass = summarizeProject(*AOpt);
  if (!Pass)
    return fail(Pass.takeError());
  std::string Text = Pass->Linked.toText();
  if (auto E = writeFileAtomically(makeAbsolute(Opt.Output), Text))
    return fail(std::move(E));
  if (auto E = storeLatestSummaries(*Pass, Text))
    return fail(std::move(E));
  FindingsModel Failed;
  Failed.Failures = Pass->Failures;
  printFailures(Failed, llvm::errs());
  if (!Opt.Quiet)
    llvm::errs() << "libtorch-tidy: wrote the summaries of "
                 << countOf(Pass->Units - Pass->Failures.size(), "translation unit") << " ("
                 << countOf(Pass->Linked.Functions.size(), "function") << ", " << Pass->Hits
                 << " from the cache) to " << Opt.Output << " in "
                 << llvm::formatv("{0:f1}", Pass->Seconds) << " s\n";
  if (!Pass->Failures.empty())
    return fail(countOf(Pass->Failures.size(), "translation unit") +
                " could not be summarised; their functions have no summary");
  return ExitClean;
}

} // namespace libtorch_tidy
