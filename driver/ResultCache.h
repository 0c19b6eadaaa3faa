//===--- ResultCache.h - clang-tidy's findings per translation unit -------===//
//
// A re-run on an unchanged tree reads the findings instead of parsing. Like
// ccache's direct mode (and ctcache for clang-tidy), an entry is found by a
// command key: the hash of everything known before the run (clang-tidy's
// version, the plugin, the checks and their configuration: the option values
// and every .clang-tidy above the file, the compile command and the extra
// arguments, the main file's contents). The entry lists every file the run
// read (the headers, those of the precompiled header included) with its size,
// modification time and content hash; it applies only while each still has
// the same contents (a changed size or time makes the cache hash the file
// again, so a touched but unchanged header still hits).
//
// Entries are JSON files under DIR/results/, written to a unique temporary
// file and renamed into place, so two drivers sharing a cache directory never
// read a torn entry (the last writer of an entry wins). trim() keeps the
// directory under its size cap by deleting the least recently used files.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_RESULTCACHE_H
#define LIBTORCH_TIDY_DRIVER_RESULTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

/// Hex BLAKE3 of the parts, each length-prefixed (no two lists collide).
std::string hashParts(llvm::ArrayRef<std::string> Parts);

/// Content hashes of files, memoized by path, size and time for one run.
class FileHasher {
public:
  /// Empty when the file cannot be read.
  std::string hash(llvm::StringRef Path);

private:
  struct Known {
    uint64_t Size;
    int64_t MTime;
    std::string Hash;
  };
  std::mutex Mutex;
  llvm::StringMap<Known> Memo;
};

class ResultCache {
public:
  /// MaxBytes 0: no cap.
  ResultCache(std::string Dir, uint64_t MaxBytes, FileHasher &Hasher);

  const std::string &dir() const { return Dir; }

  struct Entry {
    std::string ExportedFixes; // clang-tidy's --export-fixes YAML; empty: no diagnostics
    double Seconds = 0;        // what the run cost (wall, one process)
    std::string Summaries;     // the unit's function summaries (summaries pass); else empty
  };
  /// The entry of Key when every file it read is unchanged.
  std::optional<Entry> lookup(llvm::StringRef Key);
  /// The cost recorded under Key, stale or not (for balancing shards).
  std::optional<double> recordedSeconds(llvm::StringRef Key);
  /// Stores an entry; Files are the paths the run read. Errors are ignored
  /// (a cache that cannot be written only costs time).
  void store(llvm::StringRef Key, const Entry &E, llvm::ArrayRef<std::string> Files);

  /// Deletes the least recently used files under the directory until it holds
  /// at most 80 % of the cap; files in Keep are never deleted. Returns the
  /// bytes left.
  uint64_t trim(const llvm::StringMap<bool> &Keep = {});

private:
  std::string entryPath(llvm::StringRef Key) const;
  std::string Dir;
  uint64_t MaxBytes;
  FileHasher &Hasher;
};

/// Sets the file's modification time to now (recently used).
void touchFile(llvm::StringRef Path);

/// "500M", "2G", "1048576" -> bytes.
std::optional<uint64_t> parseSize(llvm::StringRef Text);

} // namespace libtorch_tidy

#endif
