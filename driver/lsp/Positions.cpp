//===--- Positions.cpp ----------------------------------------------------===//
#include "lsp/Positions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

namespace libtorch_tidy::lsp {

namespace json = llvm::json;

LineIndex::LineIndex(std::string T, bool Utf16) : Text(std::move(T)), Utf16(Utf16) {
  Starts.push_back(0);
  for (unsigned I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      Starts.push_back(I + 1);
}

unsigned LineIndex::line(unsigned Offset) const {
  Offset = std::min<unsigned>(Offset, Text.size());
  return unsigned(std::upper_bound(Starts.begin(), Starts.end(), Offset) - Starts.begin()) - 1;
}

unsigned LineIndex::lineEnd(unsigned Line) const {
  if (Line + 1 >= Starts.size())
    return Text.size();
  unsigned End = Starts[Line + 1] - 1; // the '\n'
  if (End > Starts[Line] && Text[End - 1] == '\r')
    --End;
  return End;
}

llvm::StringRef LineIndex::lineText(unsigned Line) const {
  if (Line >= Starts.size())
    return {};
  return llvm::StringRef(Text).slice(Starts[Line], lineEnd(Line));
}

/// UTF-16 code units of the UTF-8 bytes in S (a 4-byte sequence counts 2).
static unsigned utf16Length(llvm::StringRef S) {
  unsigned N = 0;
  for (unsigned char C : S) {
    if ((C & 0xC0) == 0x80)
      continue; // continuation byte
    N += (C >= 0xF0) ? 2 : 1;
  }
  return N;
}

json::Object LineIndex::position(unsigned Offset) const {
  Offset = std::min<unsigned>(Offset, Text.size());
  unsigned L = line(Offset);
  llvm::StringRef Before = llvm::StringRef(Text).slice(Starts[L], Offset);
  return json::Object{{"line", L}, {"character", Utf16 ? utf16Length(Before) : unsigned(Before.size())}};
}

unsigned LineIndex::offset(unsigned Line, unsigned Column) const {
  if (Line == 0)
    return 0;
  if (Line > Starts.size())
    return Text.size();
  unsigned Begin = Starts[Line - 1];
  return std::min(Begin + (Column ? Column - 1 : 0), lineEnd(Line - 1));
}

unsigned LineIndex::offset(const json::Object &Position) const {
  int64_t L = Position.getInteger("line").value_or(0);
  int64_t C = Position.getInteger("character").value_or(0);
  if (L < 0)
    return 0;
  if (size_t(L) >= Starts.size())
    return Text.size();
  unsigned Begin = Starts[L], End = lineEnd(unsigned(L));
  if (!Utf16)
    return std::min<unsigned>(Begin + unsigned(std::max<int64_t>(C, 0)), End);
  unsigned Units = 0, I = Begin;
  while (I < End && Units < C) {
    unsigned char B = Text[I];
    unsigned Len = B < 0x80 ? 1 : B < 0xE0 ? 2 : B < 0xF0 ? 3 : 4;
    Units += Len == 4 ? 2 : 1;
    I += Len;
  }
  return std::min(I, End);
}

std::string uriToPath(llvm::StringRef Uri) {
  if (!Uri.consume_front("file://"))
    return {};
  std::string Path;
  for (size_t I = 0; I < Uri.size(); ++I) {
    if (Uri[I] == '%' && I + 2 < Uri.size() && llvm::isHexDigit(Uri[I + 1]) &&
        llvm::isHexDigit(Uri[I + 2])) {
      Path += char(llvm::hexFromNibbles(Uri[I + 1], Uri[I + 2]));
      I += 2;
    } else {
      Path += Uri[I];
    }
  }
  return Path;
}

std::string pathToUri(llvm::StringRef Path) {
  std::string Out = "file://";
  for (unsigned char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
      Out += char(C);
    else
      Out += llvm::formatv("%{0:X-2}", unsigned(C)).str();
  }
  return Out;
}

} // namespace libtorch_tidy::lsp
