//===--- Http.cpp ---------------------------------------------------------===//
#include "Http.h"
#include "Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

namespace libtorch_tidy {

static std::string curlPath() {
  if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CURL"))
    return *Env;
  auto Curl = llvm::sys::findProgramByName("curl");
  return Curl ? *Curl : std::string();
}

static std::string readFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

HttpResponse httpRequest(const HttpRequest &Request) {
  HttpResponse R;
  std::string Curl = curlPath();
  if (Curl.empty()) {
    R.Error = "curl not found on PATH (install Debian's curl)";
    return R;
  }
  llvm::SmallString<128> HeaderFile, BodyFile, OutFile;
  std::vector<llvm::SmallString<128> *> Files = {&HeaderFile, &BodyFile, &OutFile};
  struct Cleanup { // the temporary files go on every return
    std::vector<llvm::SmallString<128> *> &Files;
    ~Cleanup() {
      for (auto *F : Files)
        if (!F->empty())
          llvm::sys::fs::remove(*F);
    }
  } RemoveFiles{Files};
  for (auto *F : Files)
    if (auto EC = llvm::sys::fs::createTemporaryFile("libtorch-tidy-http", "txt", *F)) {
      R.Error = "cannot create a temporary file: " + EC.message();
      return R;
    }
  {
    // createTemporaryFile makes the file 0600: the token stays private.
    std::error_code EC;
    llvm::raw_fd_ostream H(HeaderFile, EC);
    for (const std::string &Header : Request.Headers)
      H << Header << "\n";
    if (!Request.Body.empty())
      H << "Content-Type: application/json\n";
    llvm::raw_fd_ostream B(BodyFile, EC);
    B << Request.Body;
  }
  std::vector<std::string> Args = {"curl", "--silent", "--show-error", "--max-time", "60",
                                   "--request", Request.Method, "--header", "@" + std::string(HeaderFile),
                                   "--output", std::string(OutFile), "--write-out", "%{http_code}"};
  if (!Request.Body.empty()) {
    Args.push_back("--data-binary");
    Args.push_back("@" + std::string(BodyFile));
  }
  Args.push_back("--");
  Args.push_back(Request.Url);
  // stdout holds the status (--write-out), stderr curl's one error line.
  ProcessResult P = runProcess(Curl, Args, 120);
  if (!P.Error.empty()) {
    R.Error = P.Error;
    return R;
  }
  llvm::StringRef Output = P.Output;
  if (P.ExitCode != 0) {
    // "curl: (7) Failed to connect to host port 1: Connection refused"
    llvm::StringRef L = Output.substr(std::min(Output.find("curl: "), Output.size()));
    L = L.split('\n').first.trim();
    L.consume_front("curl: ");
    std::string Line = L.str();
    R.Error = Line.empty() ? "curl exited with " + std::to_string(P.ExitCode) : Line;
    return R;
  }
  Output.trim().getAsInteger(10, R.Status);
  R.Body = readFile(OutFile);
  if (R.Status == 0)
    R.Error = "no HTTP response";
  return R;
}

} // namespace libtorch_tidy
