//===--- Process.h - The one way the driver runs another program ----------===//
//
// Every child process of the command (clang-tidy, git, the compiler, curl,
// verify's instrumenter and the user's program) starts here:
//
//  - it leads its own process group, so a timeout or an interrupt kills
//    everything it started (kill(-pgid, SIGKILL)), not only the first process;
//  - it dies with the thread that started it (PR_SET_PDEATHSIG), so nothing
//    outlives a killed command;
//  - it dumps no core (RLIMIT_CORE 0: nothing written where it runs) and, when
//    asked, runs under an address-space cap (RLIMIT_AS);
//  - stdin is /dev/null; stdout and stderr go together to a file read back.
//
// installInterruptHandlers() (verify) makes SIGINT, SIGTERM and SIGHUP kill
// the running children's groups and every later run return at once, so the
// command unwinds and removes its work files.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_PROCESS_H
#define LIBTORCH_TIDY_DRIVER_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <system_error>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct ProcessOptions {
  std::string Directory;        ///< where it runs; empty: the current directory
  std::vector<std::string> Env; ///< NAME=VALUE added to (overriding) the environment
  unsigned TimeoutSeconds = 0;  ///< wall clock; 0: none
  uint64_t AddressSpaceBytes = 0; ///< RLIMIT_AS; 0: none
  std::string OutputDir;        ///< where the output file goes; empty: the temporary directory
};

/// Result of a child process whose stdout and stderr went to one file.
struct ProcessResult {
  int ExitCode = -1;        ///< its exit status; -1 when killed by a signal or not started
  int Signal = 0;           ///< the signal that ended it (SIGKILL after a timeout)
  bool TimedOut = false;    ///< ran past the timeout; its group was killed
  bool Interrupted = false; ///< the command got SIGINT/SIGTERM/SIGHUP (installInterruptHandlers)
  std::string Output;       ///< stdout and stderr together
  std::string Error;        ///< one line when it did not exit by itself ("Segmentation fault
                            ///< (signal 11)", "... ran past N s ..."): why; else empty
};

/// Runs Program (a path, or a name looked up on PATH) with Args (Args[0] is
/// the program's name). Returns when it exited or its group was killed.
ProcessResult runProcess(llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
                         const ProcessOptions &Options);
inline ProcessResult runProcess(llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
                                unsigned TimeoutSeconds = 0) {
  ProcessOptions O;
  O.TimeoutSeconds = TimeoutSeconds;
  return runProcess(Program, Args, O);
}

/// Creates a new file for a run's temporary output: in \p Dir when it is not
/// empty (named <Prefix>-XXXXXX.<Ext>), else in the system's temporary
/// directory; its path goes to \p Path.
std::error_code createTempFileIn(llvm::StringRef Dir, llvm::StringRef Prefix, llvm::StringRef Ext,
                                 llvm::SmallVectorImpl<char> &Path);

/// Installs the SIGINT/SIGTERM/SIGHUP handlers (once).
void installInterruptHandlers();

/// The signal the command was interrupted by, 0 when none.
int interruptSignal();

} // namespace libtorch_tidy

#endif
