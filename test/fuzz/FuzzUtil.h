//===--- FuzzUtil.h - libtorch-tidy fuzz targets: shared helpers -*- C++ -*-===//
//
// The driver reads most outside input from files (compile_commands.json, the
// baseline, reports, cache entries): the targets write each input to a file in
// a private temporary directory and call the driver's own reader on it.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_TEST_FUZZ_FUZZUTIL_H
#define LIBTORCH_TIDY_TEST_FUZZ_FUZZUTIL_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace libtorch_tidy::fuzz {

/// A directory of this process, created once, removed at exit.
inline const std::string &workDir() {
  static const std::string Dir = [] {
    llvm::SmallString<256> P;
    if (llvm::sys::fs::createUniqueDirectory("libtorch-tidy-fuzz", P))
      std::abort();
    std::string S(P);
    static std::string Keep = S;
    std::atexit([] { llvm::sys::fs::remove_directories(Keep); });
    return S;
  }();
  return Dir;
}

/// Writes Data to NAME in the work directory (subdirectories created); returns its path.
inline std::string writeInput(llvm::StringRef Name, const uint8_t *Data, size_t Size) {
  llvm::SmallString<256> P(workDir());
  llvm::sys::path::append(P, Name);
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
  std::error_code EC;
  llvm::raw_fd_ostream OS(P, EC);
  if (EC)
    std::abort();
  OS.write(reinterpret_cast<const char *>(Data), Size);
  return std::string(P);
}

} // namespace libtorch_tidy::fuzz

#endif
