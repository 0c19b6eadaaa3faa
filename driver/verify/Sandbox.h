//===--- Sandbox.h - libtorch-tidy verify: bounded child processes -*- C++ -*-===//
//
// How verify runs other programs (clang-tidy, the instrumenter, the compiler,
// the user's program): each child leads its own process group, so a timeout or
// an interrupt kills everything it started (kill(-pgid, SIGKILL)), not only the
// first process; it dies with verify (PR_SET_PDEATHSIG); it dumps no core
// (RLIMIT_CORE 0: nothing written into the directory it runs in); and, for the
// user's program, its address space is capped (RLIMIT_AS). SIGINT, SIGTERM and
// SIGHUP sent to verify kill the running child's group and make every later
// run return at once, so verify unwinds and removes its work directory.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_VERIFY_SANDBOX_H
#define LIBTORCH_TIDY_DRIVER_VERIFY_SANDBOX_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace libtorch_tidy::verify {

struct Limits {
  unsigned WallSeconds = 0;          ///< 0: none
  uint64_t AddressSpaceBytes = 0;    ///< RLIMIT_AS; 0: none
};

struct BoundedResult {
  int ExitCode = -1;       ///< the exit status; -1 when killed by a signal or not started
  int Signal = 0;          ///< the signal that ended it (SIGKILL after a timeout)
  bool TimedOut = false;   ///< ran past Limits::WallSeconds; its group was killed
  bool Interrupted = false;///< verify itself got SIGINT/SIGTERM/SIGHUP
  bool ExecFailed = false; ///< could not be started
  std::string Error;       ///< why it could not be started
};

/// Installs the SIGINT/SIGTERM/SIGHUP handlers (once).
void installInterruptHandlers();

/// The signal verify was interrupted by, 0 when none.
int interruptSignal();

/// Runs \p Args (Args[0]: a path, or a name found on PATH) in \p Dir ("" for
/// the current directory) with \p Env added to (and overriding) verify's
/// environment, stdin from /dev/null, stdout and stderr to \p LogFile, under
/// \p L. Returns when the child exited, or its group was killed.
BoundedResult runBounded(const std::vector<std::string> &Args, llvm::StringRef Dir,
                         const std::vector<std::string> &Env, const Limits &L,
                         llvm::StringRef LogFile);

} // namespace libtorch_tidy::verify

#endif // LIBTORCH_TIDY_DRIVER_VERIFY_SANDBOX_H
