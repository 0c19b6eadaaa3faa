//===--- Verify.h - libtorch-tidy -------------------------------*- C++ -*-===//
//
// `libtorch-tidy verify FILE`: proves the memory fix-its on the user's own
// program. Finds the memory findings in FILE, instruments the loops that hold
// them with the runtime's per-iteration probe (a Clang rewrite done by
// libtorch-tidy-instrument), applies the fix-its to a copy, builds both copies
// with FILE's compile command plus the runtime, runs both for a bounded number
// of iterations and compares their memory growth per iteration.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_VERIFY_VERIFY_H
#define LIBTORCH_TIDY_DRIVER_VERIFY_VERIFY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"
#include <string>

namespace libtorch_tidy::verify {

/// Exit codes of `verify`.
enum ExitCode : int {
  Fixed = 0,        ///< every finding's growth is gone
  NotFixed = 1,     ///< some finding still grows, or the fix made it worse
  UsageError = 2,   ///< bad arguments, missing file or compile command, no main()
  NothingFound = 3, ///< no memory finding in a loop: nothing to verify
  BuildOrRun = 4,   ///< a copy did not build, crashed or ran past the time limit
};

/// Paths and flags fixed at build time (see VerifyConfig.h.in), overridable.
struct Toolchain {
  std::string ClangTidy;
  std::string Plugin;
  std::string Instrument;
  std::string Cxx;
  std::string RuntimeIncludeDir;
  std::string RuntimeLinkFlags; ///< the runtime library and its rpath
  std::string TorchLinkFlags;   ///< -L, -rpath and -l flags of LibTorch
};

/// The `verify` subcommand; its options are registered under it. The other
/// commands unregister it (hide) before they parse: their --help lists the
/// subcommands itself, and an argument spelled `verify` is theirs.
class VerifySubCommand : public llvm::cl::SubCommand {
public:
  using llvm::cl::SubCommand::SubCommand;
  void hide() { unregisterSubCommand(); }
};
extern VerifySubCommand Command;

/// Runs `verify` after the command line was parsed; the tools are found beside
/// the running command. \p ProgramArgs (what follows `--`) are given to the
/// program.
int run(llvm::ArrayRef<std::string> ProgramArgs);

} // namespace libtorch_tidy::verify

#endif // LIBTORCH_TIDY_DRIVER_VERIFY_VERIFY_H
