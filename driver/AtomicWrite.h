//===--- AtomicWrite.h - Files written whole or not at all ----------------===//
//
// The one way the driver, verify and the instrumenter write a file a user
// reads (a fixed source, a report, a baseline, a cache entry): a unique
// temporary file beside it, then a rename, so a reader sees the old text or
// the new one, never a part; an interrupted write leaves the old file.
// LLVM Support only (the instrumenter links it too).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_ATOMICWRITE_H
#define LIBTORCH_TIDY_DRIVER_ATOMICWRITE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace libtorch_tidy {

/// Writes Contents to Path through a temporary file and a rename, keeping
/// Path's permissions. The error is one line: "cannot write PATH: why".
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// The same, creating Path's directory first.
llvm::Error writeFileAtomicallyIn(llvm::StringRef Path, llvm::StringRef Contents);

} // namespace libtorch_tidy

#endif
