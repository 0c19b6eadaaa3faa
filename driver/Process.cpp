//===--- Process.cpp ------------------------------------------------------===//
#include "Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace libtorch_tidy {

namespace {
volatile sig_atomic_t Interrupt = 0;
// The process groups of the running children (several run at once under -j):
// the interrupt handler kills each. Lock-free atomics are async-signal-safe.
constexpr size_t MaxGroups = 256;
std::atomic<pid_t> Groups[MaxGroups];

extern "C" void onInterrupt(int Sig) {
  Interrupt = Sig;
  for (auto &G : Groups) {
    pid_t Group = G.load();
    if (Group > 0)
      ::kill(-Group, SIGKILL);
  }
}

/// A slot of Groups for \p Pid; MaxGroups when all are taken (the group then
/// goes unkilled by an interrupt, but still dies with the command).
size_t recordGroup(pid_t Pid) {
  for (size_t I = 0; I < MaxGroups; ++I) {
    pid_t Free = 0;
    if (Groups[I].compare_exchange_strong(Free, Pid))
      return I;
  }
  return MaxGroups;
}
} // namespace

void installInterruptHandlers() {
  static std::atomic<bool> Installed{false};
  if (Installed.exchange(true))
    return;
  struct sigaction SA;
  std::memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onInterrupt;
  sigemptyset(&SA.sa_mask);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(Sig, &SA, nullptr);
}

int interruptSignal() { return Interrupt; }

std::error_code createTempFileIn(llvm::StringRef Dir, llvm::StringRef Prefix, llvm::StringRef Ext,
                                 llvm::SmallVectorImpl<char> &Path) {
  if (Dir.empty())
    return llvm::sys::fs::createTemporaryFile(Prefix, Ext, Path);
  return llvm::sys::fs::createUniqueFile(Dir + "/" + Prefix + "-%%%%%%." + Ext, Path);
}

ProcessResult runProcess(llvm::StringRef ProgramName, llvm::ArrayRef<std::string> Args,
                         const ProcessOptions &O) {
  ProcessResult R;
  if (Interrupt) {
    R.Interrupted = true;
    R.Error = "interrupted";
    return R;
  }
  std::string Program = ProgramName.str();
  if (Program.empty() && !Args.empty())
    Program = Args.front();
  if (!llvm::sys::path::has_parent_path(Program)) {
    auto Found = llvm::sys::findProgramByName(Program);
    if (!Found) {
      R.Error = "cannot find '" + Program + "' on PATH";
      return R;
    }
    Program = *Found;
  }
  if (!llvm::sys::fs::can_execute(Program)) {
    R.Error = "cannot execute '" + Program + "'";
    return R;
  }
  llvm::SmallString<256> OutFile;
  if (std::error_code EC = createTempFileIn(O.OutputDir, "libtorch-tidy-process", "log", OutFile)) {
    R.Error = "cannot create a temporary file: " + EC.message();
    return R;
  }

  // Everything the child needs is prepared before fork(): after it, the
  // child only makes async-signal-safe calls.
  std::vector<std::string> FullEnv;
  for (char **E = environ; *E; ++E) {
    llvm::StringRef Var(*E);
    bool Overridden = llvm::any_of(O.Env, [&](const std::string &New) {
      return Var.split('=').first == llvm::StringRef(New).split('=').first;
    });
    if (!Overridden)
      FullEnv.push_back(Var.str());
  }
  FullEnv.insert(FullEnv.end(), O.Env.begin(), O.Env.end());
  std::vector<char *> Argv, Envp;
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  if (Args.empty())
    Argv.push_back(const_cast<char *>(Program.c_str()));
  Argv.push_back(nullptr);
  for (const std::string &E : FullEnv)
    Envp.push_back(const_cast<char *>(E.c_str()));
  Envp.push_back(nullptr);
  std::string Dir = O.Directory, Log = OutFile.str().str();
  const pid_t Parent = ::getpid();
  // The child reports a failed exec through this pipe (closed on success).
  int ExecPipe[2];
  if (::pipe2(ExecPipe, O_CLOEXEC) != 0) {
    R.Error = std::string("cannot start '") + Program + "': " + std::strerror(errno);
    llvm::sys::fs::remove(OutFile);
    return R;
  }

  // The handler must not miss a group that is not recorded yet: block the
  // interrupt signals in this thread until it is.
  sigset_t Block, Old;
  sigemptyset(&Block);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&Block, Sig);
  ::pthread_sigmask(SIG_BLOCK, &Block, &Old);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != Parent) // the command died between fork() and prctl()
      ::_exit(127);
    for (int Sig : {SIGINT, SIGTERM, SIGHUP})
      ::signal(Sig, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &Old, nullptr);
    struct rlimit NoCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &NoCore);
    if (O.AddressSpaceBytes) {
      struct rlimit AS = {rlim_t(O.AddressSpaceBytes), rlim_t(O.AddressSpaceBytes)};
      ::setrlimit(RLIMIT_AS, &AS);
    }
    int Err = 0;
    if (!Dir.empty() && ::chdir(Dir.c_str()) != 0)
      Err = errno;
    int In = Err ? -1 : ::open("/dev/null", O_RDONLY);
    int Out = Err || In < 0 ? -1 : ::open(Log.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (!Err && (In < 0 || Out < 0))
      Err = errno;
    if (!Err) {
      ::dup2(In, 0);
      ::dup2(Out, 1);
      ::dup2(Out, 2);
      ::execve(Program.c_str(), Argv.data(), Envp.data());
      Err = errno;
    }
    (void)!::write(ExecPipe[1], &Err, sizeof(Err));
    ::_exit(127);
  }
  ::close(ExecPipe[1]);
  if (Pid < 0) {
    ::pthread_sigmask(SIG_SETMASK, &Old, nullptr);
    ::close(ExecPipe[0]);
    R.Error = std::string("cannot start '") + Program + "': " + std::strerror(errno);
    llvm::sys::fs::remove(OutFile);
    return R;
  }
  ::setpgid(Pid, Pid); // also here: no race with the child's own call
  size_t Slot = recordGroup(Pid);
  ::pthread_sigmask(SIG_SETMASK, &Old, nullptr);

  int ExecErr = 0;
  ssize_t N;
  do
    N = ::read(ExecPipe[0], &ExecErr, sizeof(ExecErr));
  while (N < 0 && errno == EINTR);
  ::close(ExecPipe[0]);
  if (N <= 0)
    ExecErr = 0;

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
      ::waitpid(Pid, &Status, 0);
      break;
    }
    if (O.TimeoutSeconds &&
        std::chrono::steady_clock::now() - Start >= std::chrono::seconds(O.TimeoutSeconds)) {
      ::kill(-Pid, SIGKILL);
      R.TimedOut = true;
      ::waitpid(Pid, &Status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // What the child left running in its group (daemons, stray workers) goes too.
  ::kill(-Pid, SIGKILL);
  if (Slot < MaxGroups)
    Groups[Slot].store(0);
  if (Interrupt)
    R.Interrupted = true;
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    R.Signal = WTERMSIG(Status);
  if (auto Buf = llvm::MemoryBuffer::getFile(OutFile))
    R.Output = (*Buf)->getBuffer().str();
  llvm::sys::fs::remove(OutFile);

  std::string Name = llvm::sys::path::filename(Program).str();
  if (ExecErr) {
    R.ExitCode = -1;
    R.Error = "cannot execute '" + Program + "': " + std::strerror(ExecErr);
  } else if (R.Interrupted) {
    R.Error = "interrupted by signal " + std::to_string(int(Interrupt));
  } else if (R.TimedOut) {
    R.ExitCode = -1;
    R.Error = Name + " ran past " + std::to_string(O.TimeoutSeconds) + " s; its process group was killed";
  } else if (R.Signal) {
    R.Error = std::string(::strsignal(R.Signal)) + " (signal " + std::to_string(R.Signal) + ")";
  }
  return R;
}

} // namespace libtorch_tidy
