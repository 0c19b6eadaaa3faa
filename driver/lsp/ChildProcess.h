//===--- ChildProcess.h - An analysis run that can be killed as a whole ---===//
//
// Each analysis is `libtorch-tidy --format=json ... FILE`, a child process
// that itself runs clang (the precompiled header) and clang-tidy. Cancelling
// must stop all of them, so the child leads its own process group and is
// killed with its group. llvm::sys::ExecuteNoWait cannot create a process
// group, hence posix_spawn (POSIX_SPAWN_SETPGROUP) here.
//
// The exit is awaited without reaping it first (waitid WNOWAIT), so that a
// kill from another thread never reaches a recycled process id: the caller
// forgets the id under its lock, then reaps.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LSP_CHILDPROCESS_H
#define LIBTORCH_TIDY_DRIVER_LSP_CHILDPROCESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace libtorch_tidy::lsp {

/// Starts Args (Args[0] the program) in a new process group: stdin from
/// /dev/null, stdout to OutFile, stderr to ErrFile. Returns its pid.
llvm::Expected<int> spawnGroup(const std::vector<std::string> &Args, llvm::StringRef OutFile,
                               llvm::StringRef ErrFile);
/// Blocks until the process exits, leaving it unreaped.
void awaitExit(int Pid);
/// Reaps the process: its exit code, or 128 + signal number.
int reap(int Pid);
/// Kills the process group led by Pid (SIGKILL).
void killGroup(int Pid);

} // namespace libtorch_tidy::lsp

#endif
