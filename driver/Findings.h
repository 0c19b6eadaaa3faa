//===--- Findings.h - What clang-tidy reported, in the driver's terms ----===//
//
// A finding is one clang-tidy diagnostic (a check's warning or a compiler
// error) with its notes and its fix-it, located by file offset (as clang-tidy
// exports it) and by line/column (computed by the driver from the file).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_FINDINGS_H
#define LIBTORCH_TIDY_DRIVER_FINDINGS_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct Replacement {
  std::string File; // absolute, native separators
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
  bool operator==(const Replacement &O) const {
    return File == O.File && Offset == O.Offset && Length == O.Length && Text == O.Text;
  }
};

struct Location {
  std::string File; // absolute; empty when clang-tidy gave none
  unsigned Offset = 0;
  unsigned Line = 0;   // 1-based; 0 when unknown
  unsigned Column = 0; // 1-based byte column
};

struct Note {
  std::string Message;
  Location Loc;
};

struct Finding {
  std::string Check;   // e.g. torch-eval-without-no-grad, clang-diagnostic-error
  std::string Level;   // "warning" or "error"
  std::string Message;
  Location Loc;
  std::vector<Note> Notes;
  std::vector<Replacement> Fix; // the diagnostic's own fix-it (all or nothing)
  std::string Fingerprint;      // see Baseline.h
  bool isCompilerError() const { return Level == "error" && llvm::StringRef(Check).starts_with("clang-diagnostic"); }
};

/// File contents read once and shared: offsets to lines and columns, the text
/// of a line. Thread-safe.
class SourceCache {
public:
  /// Null when the file cannot be read.
  const llvm::MemoryBuffer *get(llvm::StringRef Path);
  /// Fills Line/Column from Offset; leaves them 0 when the file is unreadable.
  void locate(Location &Loc);
  /// Fills Offset from Line/Column (a report read back); leaves it when unknown.
  void offsetFromLine(Location &Loc);
  /// The text of a 1-based line without its line ending; empty when unknown.
  llvm::StringRef lineText(llvm::StringRef Path, unsigned Line);

private:
  struct Entry {
    std::unique_ptr<llvm::MemoryBuffer> Buffer;
    std::vector<unsigned> LineStarts;
  };
  Entry *entry(llvm::StringRef Path);
  std::mutex Mutex;
  llvm::StringMap<std::unique_ptr<Entry>> Files;
};

/// Sorts findings by file, line, column, check, message, and drops the
/// duplicates several translation units report for the same header.
void sortAndDedupe(std::vector<Finding> &Findings);

/// Path for humans and reports: relative to Base when under it, else absolute,
/// with '/' separators.
std::string displayPath(llvm::StringRef Path, llvm::StringRef Base);

} // namespace libtorch_tidy

#endif
