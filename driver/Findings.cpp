//===--- Findings.cpp -----------------------------------------------------===//
#include "Findings.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <tuple>

namespace libtorch_tidy {

SourceCache::Entry *SourceCache::entry(llvm::StringRef Path) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Files.find(Path);
  if (It != Files.end())
    return It->second.get();
  auto E = std::make_unique<Entry>();
  // Regular files only: a path from a report or a cache entry may name a
  // device or a pipe (/dev/zero, /dev/stdin), which would never end.
  auto Buf = llvm::sys::fs::is_regular_file(Path)
                 ? llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false)
                 : llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>(
                       std::make_error_code(std::errc::not_supported));
  if (Buf) {
    E->Buffer = std::move(*Buf);
    llvm::StringRef Text = E->Buffer->getBuffer();
    E->LineStarts.push_back(0);
    for (size_t I = 0; I < Text.size(); ++I)
      if (Text[I] == '\n')
        E->LineStarts.push_back(I + 1);
  }
  Entry *Raw = E.get();
  Files[Path] = std::move(E);
  return Raw;
}

const llvm::MemoryBuffer *SourceCache::get(llvm::StringRef Path) { return entry(Path)->Buffer.get(); }

void SourceCache::locate(Location &Loc) {
  if (Loc.File.empty())
    return;
  Entry *E = entry(Loc.File);
  if (!E->Buffer || Loc.Offset > E->Buffer->getBufferSize())
    return;
  auto It = std::upper_bound(E->LineStarts.begin(), E->LineStarts.end(), Loc.Offset);
  unsigned LineIndex = unsigned(It - E->LineStarts.begin()) - 1;
  Loc.Line = LineIndex + 1;
  Loc.Column = Loc.Offset - E->LineStarts[LineIndex] + 1;
}

void SourceCache::offsetFromLine(Location &Loc) {
  if (Loc.File.empty() || !Loc.Line)
    return;
  Entry *E = entry(Loc.File);
  if (!E->Buffer || Loc.Line > E->LineStarts.size())
    return;
  Loc.Offset = E->LineStarts[Loc.Line - 1] + (Loc.Column ? Loc.Column - 1 : 0);
}

llvm::StringRef SourceCache::lineText(llvm::StringRef Path, unsigned Line) {
  Entry *E = entry(Path);
  if (!E->Buffer || Line == 0 || Line > E->LineStarts.size())
    return {};
  llvm::StringRef Text = E->Buffer->getBuffer();
  size_t Begin = E->LineStarts[Line - 1];
  size_t End = Line < E->LineStarts.size() ? E->LineStarts[Line] : Text.size();
  return Text.slice(Begin, End).rtrim("\r\n");
}

void sortAndDedupe(std::vector<Finding> &Findings) {
  auto Key = [](const Finding &F) {
    return std::tie(F.Loc.File, F.Loc.Line, F.Loc.Column, F.Check, F.Message);
  };
  std::stable_sort(Findings.begin(), Findings.end(),
                   [&](const Finding &A, const Finding &B) { return Key(A) < Key(B); });
  Findings.erase(std::unique(Findings.begin(), Findings.end(),
                             [&](const Finding &A, const Finding &B) {
                               return Key(A) == Key(B) && A.Loc.Offset == B.Loc.Offset;
                             }),
                 Findings.end());
}

std::string displayPath(llvm::StringRef Path, llvm::StringRef Base) {
  std::string Result = Path.str();
  if (!Base.empty()) {
    std::string Prefix = Base.str();
    if (!llvm::StringRef(Prefix).ends_with("/"))
      Prefix += '/';
    if (llvm::StringRef(Result).starts_with(Prefix))
      Result = Result.substr(Prefix.size());
  }
  return llvm::sys::path::convert_to_slash(Result);
}

} // namespace libtorch_tidy
