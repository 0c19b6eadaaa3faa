//===--- ChildProcess.cpp -------------------------------------------------===//
#include "lsp/ChildProcess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace libtorch_tidy::lsp {

llvm::Expected<int> spawnGroup(const std::vector<std::string> &Args, llvm::StringRef OutFile,
                               llvm::StringRef ErrFile) {
  std::vector<char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  std::string Out = OutFile.str(), Err = ErrFile.str();
  posix_spawn_file_actions_t Actions;
  posix_spawnattr_t Attr;
  posix_spawn_file_actions_init(&Actions);
  posix_spawnattr_init(&Attr);
  posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&Actions, 1, Out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&Actions, 2, Err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&Attr, 0);
  pid_t Pid = 0;
  int RC = posix_spawn(&Pid, Argv[0], &Actions, &Attr, Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  posix_spawnattr_destroy(&Attr);
  if (RC != 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "cannot run %s: %s",
                                   Argv[0], std::strerror(RC));
  return int(Pid);
}

void awaitExit(int Pid) {
  siginfo_t Info;
  while (waitid(P_PID, id_t(Pid), &Info, WEXITED | WNOWAIT) == -1 && errno == EINTR) {
  }
}

int reap(int Pid) {
  int Status = 0;
  while (waitpid(Pid, &Status, 0) == -1) {
    if (errno != EINTR)
      return -1;
  }
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  if (WIFSIGNALED(Status))
    return 128 + WTERMSIG(Status);
  return -1;
}

void killGroup(int Pid) {
  if (Pid > 0)
    ::kill(-Pid, SIGKILL);
}

} // namespace libtorch_tidy::lsp
