//===--- VerifyCommand.cpp - libtorch-tidy verify -------------------------===//

#include "VerifyCommand.h"
#include "Toolchain.h"
#include "verify/Verify.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace libtorch_tidy {

void hideVerifySubcommand() { verify::Command.hide(); }

int runVerifyCommand(int Argc, const char **Argv) {
  // Parse as "libtorch-tidy verify ARGS" so the options of the verify
  // subcommand (and only those) apply.
  std::string Self = selfPath();
  // What follows the first "--" is the program's: its arguments.
  std::vector<const char *> Args = {Self.c_str()};
  std::vector<std::string> ProgramArgs;
  int I = 0;
  for (; I < Argc && llvm::StringRef(Argv[I]) != "--"; ++I)
    Args.push_back(Argv[I]);
  for (++I; I < Argc; ++I)
    ProgramArgs.push_back(Argv[I]);
  if (!llvm::cl::ParseCommandLineOptions(int(Args.size()), Args.data(),
                                         "libtorch-tidy verify: prove the memory fix-its on a "
                                         "program\n",
                                         &llvm::errs()))
    return verify::UsageError;
  return verify::run(ProgramArgs);
}

} // namespace libtorch_tidy
