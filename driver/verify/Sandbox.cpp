//===--- Sandbox.cpp - libtorch-tidy verify: bounded child processes ------===//

#include "Sandbox.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace libtorch_tidy::verify {

namespace {
volatile sig_atomic_t Interrupt = 0;
volatile sig_atomic_t RunningGroup = 0;

extern "C" void onInterrupt(int Sig) {
  Interrupt = Sig;
  pid_t Group = RunningGroup;
  if (Group > 0)
    ::kill(-Group, SIGKILL);
}
} // namespace

void installInterruptHandlers() {
  static bool Installed = false;
  if (Installed)
    return;
  Installed = true;
  struct sigaction SA;
  std::memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onInterrupt;
  sigemptyset(&SA.sa_mask);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(Sig, &SA, nullptr);
}

int interruptSignal() { return Interrupt; }

BoundedResult runBounded(const std::vector<std::string> &Args, llvm::StringRef Dir,
                         const std::vector<std::string> &Env, const Limits &L,
                         llvm::StringRef LogFile) {
  BoundedResult R;
  if (Interrupt) {
    R.Interrupted = true;
    return R;
  }
  if (Args.empty()) {
    R.ExecFailed = true;
    R.Error = "no program";
    return R;
  }
  std::string Program = Args[0];
  if (!llvm::sys::path::has_parent_path(Program)) {
    auto Found = llvm::sys::findProgramByName(Program);
    if (!Found) {
      R.ExecFailed = true;
      R.Error = "cannot find '" + Program + "' on PATH";
      return R;
    }
    Program = *Found;
  }
  // Everything the child needs is prepared before fork(): after it, the
  // child only makes async-signal-safe calls.
  std::vector<std::string> FullEnv;
  for (char **E = environ; *E; ++E) {
    llvm::StringRef Var(*E);
    bool Overridden = llvm::any_of(Env, [&](const std::string &O) {
      return Var.split('=').first == llvm::StringRef(O).split('=').first;
    });
    if (!Overridden)
      FullEnv.push_back(Var.str());
  }
  FullEnv.insert(FullEnv.end(), Env.begin(), Env.end());
  std::vector<char *> Argv, Envp;
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  for (const std::string &E : FullEnv)
    Envp.push_back(const_cast<char *>(E.c_str()));
  Envp.push_back(nullptr);
  std::string DirStr = Dir.str(), LogStr = LogFile.str();
  pid_t Parent = ::getpid();

  // The handler must not kill a group that does not exist yet: block the
  // interrupt signals until the child's group is recorded.
  sigset_t Block, Old;
  sigemptyset(&Block);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&Block, Sig);
  ::sigprocmask(SIG_BLOCK, &Block, &Old);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != Parent) // verify died between fork() and prctl()
      ::_exit(127);
    for (int Sig : {SIGINT, SIGTERM, SIGHUP})
      ::signal(Sig, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &Old, nullptr);
    struct rlimit NoCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &NoCore);
    if (L.AddressSpaceBytes) {
      struct rlimit AS = {rlim_t(L.AddressSpaceBytes), rlim_t(L.AddressSpaceBytes)};
      ::setrlimit(RLIMIT_AS, &AS);
    }
    if (!DirStr.empty() && ::chdir(DirStr.c_str()) != 0)
      ::_exit(127);
    int In = ::open("/dev/null", O_RDONLY);
    int Out = ::open(LogStr.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (In < 0 || Out < 0)
      ::_exit(127);
    ::dup2(In, 0);
    ::dup2(Out, 1);
    ::dup2(Out, 2);
    ::execve(Program.c_str(), Argv.data(), Envp.data());
    static const char Msg[] = "libtorch-tidy verify: error: cannot execute ";
    (void)!::write(2, Msg, sizeof(Msg) - 1);
    (void)!::write(2, Program.c_str(), Program.size());
    (void)!::write(2, "\n", 1);
    ::_exit(127);
  }
  if (Pid < 0) {
    ::sigprocmask(SIG_SETMASK, &Old, nullptr);
    R.ExecFailed = true;
    R.Error = std::string("cannot start '") + Program + "': " + std::strerror(errno);
    return R;
  }
  ::setpgid(Pid, Pid); // also here: no race with the child's own call
  RunningGroup = Pid;
  ::sigprocmask(SIG_SETMASK, &Old, nullptr);

  auto Start = std::chrono::steady_clock::now();
  int Status = 0;
  for (;;) {
    pid_t W = ::waitpid(Pid, &Status, WNOHANG);
    if (W == Pid)
      break;
    if (W < 0 && errno != EINTR) {
      Status = 0;
      break;
    }
    if (Interrupt) { // the handler killed the group already; make sure
      ::kill(-Pid, SIGKILL);
      R.Interrupted = true;
    } else if (L.WallSeconds &&
               std::chrono::steady_clock::now() - Start >= std::chrono::seconds(L.WallSeconds)) {
      ::kill(-Pid, SIGKILL);
      R.TimedOut = true;
      ::waitpid(Pid, &Status, 0);
      break;
    }
    if (R.Interrupted) {
      ::waitpid(Pid, &Status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // What the child left running in its group (daemons, stray workers) goes too.
  ::kill(-Pid, SIGKILL);
  RunningGroup = 0;
  if (Interrupt)
    R.Interrupted = true;
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status)) {
    R.Signal = WTERMSIG(Status);
  }
  return R;
}

} // namespace libtorch_tidy::verify
