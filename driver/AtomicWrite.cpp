//===--- AtomicWrite.cpp --------------------------------------------------===//
#include "AtomicWrite.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace libtorch_tidy {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents) {
  llvm::SmallString<256> Model(Path);
  Model += ".libtorch-tidy-%%%%%%.tmp";
  int FD;
  llvm::SmallString<256> Temp;
  if (auto EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return createStringError(EC, "cannot write %s: %s", Path.str().c_str(), EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Contents;
    OS.close();
    if (OS.has_error()) {
      std::string Msg = OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return createStringError(inconvertibleErrorCode(), "cannot write %s: %s", Path.str().c_str(),
                               Msg.c_str());
    }
  }
  llvm::sys::fs::file_status Status;
  if (!llvm::sys::fs::status(Path, Status))
    llvm::sys::fs::setPermissions(Temp, Status.permissions());
  if (auto EC = llvm::sys::fs::rename(Temp, Path)) {
    llvm::sys::fs::remove(Temp);
    return createStringError(EC, "cannot write %s: %s", Path.str().c_str(), EC.message().c_str());
  }
  return llvm::Error::success();
}

llvm::Error writeFileAtomicallyIn(llvm::StringRef Path, llvm::StringRef Contents) {
  if (auto EC = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)))
    return llvm::createStringError(EC, "cannot create %s: %s",
                                   llvm::sys::path::parent_path(Path).str().c_str(),
                                   EC.message().c_str());
  return writeFileAtomically(Path, Contents);
}

} // namespace libtorch_tidy
