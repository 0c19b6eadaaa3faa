//===--- Positions.h - Byte offsets of clang, positions of LSP ------------===//
//
// clang-tidy locates findings and fix-its by byte offset (and the driver adds
// 1-based byte columns); LSP positions count UTF-16 code units by default, or
// bytes when the client accepts the "utf-8" position encoding.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LSP_POSITIONS_H
#define LIBTORCH_TIDY_DRIVER_LSP_POSITIONS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace libtorch_tidy::lsp {

class LineIndex {
public:
  LineIndex(std::string Text, bool Utf16);
  const std::string &text() const { return Text; }
  /// The LSP position of a byte offset (clamped to the text).
  llvm::json::Object position(unsigned Offset) const;
  /// The byte offset of a 1-based line and byte column (clamped).
  unsigned offset(unsigned Line, unsigned Column) const;
  /// The byte offset of an LSP position (clamped).
  unsigned offset(const llvm::json::Object &Position) const;
  /// The 0-based line of a byte offset.
  unsigned line(unsigned Offset) const;
  /// Byte offset of the end of a 0-based line (before its line ending).
  unsigned lineEnd(unsigned Line) const;
  llvm::StringRef lineText(unsigned Line) const;
  llvm::json::Object range(unsigned Begin, unsigned End) const {
    return llvm::json::Object{{"start", position(Begin)}, {"end", position(End)}};
  }

private:
  std::string Text;
  bool Utf16;
  std::vector<unsigned> Starts;
};

/// file:///a%20b -> /a b; empty when not a file URI.
std::string uriToPath(llvm::StringRef Uri);
std::string pathToUri(llvm::StringRef Path);

} // namespace libtorch_tidy::lsp

#endif
