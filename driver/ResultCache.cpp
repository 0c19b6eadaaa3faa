//===--- ResultCache.cpp --------------------------------------------------===//
#include "ResultCache.h"
#include "AtomicWrite.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <algorithm>

namespace libtorch_tidy {

namespace fs = llvm::sys::fs;
namespace json = llvm::json;

static std::string hexDigest(llvm::BLAKE3 &Hasher) {
  auto Digest = Hasher.final<16>();
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

std::string hashParts(llvm::ArrayRef<std::string> Parts) {
  llvm::BLAKE3 H;
  for (const std::string &P : Parts) {
    std::string Len = std::to_string(P.size()) + ":";
    H.update(Len);
    H.update(P);
  }
  return hexDigest(H);
}

static int64_t mtimeNs(const fs::file_status &S) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             S.getLastModificationTime().time_since_epoch())
      .count();
}

std::string FileHasher::hash(llvm::StringRef Path) {
  fs::file_status S;
  if (fs::status(Path, S) || !fs::is_regular_file(S))
    return {};
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Memo.find(Path);
    if (It != Memo.end() && It->second.Size == S.getSize() && It->second.MTime == mtimeNs(S))
      return It->second.Hash;
  }
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return {};
  llvm::BLAKE3 H;
  H.update((*Buf)->getBuffer());
  std::string Hash = hexDigest(H);
  std::lock_guard<std::mutex> Lock(Mutex);
  Memo[Path] = Known{S.getSize(), mtimeNs(S), Hash};
  return Hash;
}

ResultCache::ResultCache(std::string Dir, uint64_t MaxBytes, FileHasher &Hasher)
    : Dir(std::move(Dir)), MaxBytes(MaxBytes), Hasher(Hasher) {}

std::string ResultCache::entryPath(llvm::StringRef Key) const {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, "results", Key.take_front(2), Key + ".json");
  return std::string(P);
}

static std::optional<json::Object> readEntry(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  auto V = json::parse((*Buf)->getBuffer());
  if (!V) {
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  const json::Object *O = V->getAsObject();
  if (!O || O->getInteger("version") != 1)
    return std::nullopt;
  return *O;
}

std::optional<double> ResultCache::recordedSeconds(llvm::StringRef Key) {
  auto O = readEntry(entryPath(Key));
  if (!O)
    return std::nullopt;
  return O->getNumber("seconds");
}

std::optional<ResultCache::Entry> ResultCache::lookup(llvm::StringRef Key) {
  std::string Path = entryPath(Key);
  auto O = readEntry(Path);
  if (!O)
    return std::nullopt;
  const json::Array *Files = O->getArray("files");
  auto Fixes = O->getString("fixes");
  if (!Files || !Fixes)
    return std::nullopt;
  for (const json::Value &F : *Files) {
    const json::Object *FO = F.getAsObject();
    if (!FO)
      return std::nullopt;
    auto P = FO->getString("path");
    auto Hash = FO->getString("hash");
    auto Size = FO->getInteger("size");
    auto MTime = FO->getInteger("mtime");
    if (!P || !Hash || !Size || !MTime)
      return std::nullopt;
    fs::file_status S;
    if (fs::status(*P, S))
      return std::nullopt; // gone
    if (S.getSize() != uint64_t(*Size))
      return std::nullopt;
    if (mtimeNs(S) != *MTime && Hasher.hash(*P) != *Hash)
      return std::nullopt;
  }
  Entry E;
  E.ExportedFixes = Fixes->str();
  E.Seconds = O->getNumber("seconds").value_or(0);
  if (auto Summaries = O->getString("summaries"))
    E.Summaries = Summaries->str();
  // Recently used: trim() keeps it longer.
  touchFile(Path);
  return E;
}

void ResultCache::store(llvm::StringRef Key, const Entry &E, llvm::ArrayRef<std::string> Files) {
  json::Array FilesJson;
  llvm::StringMap<bool> Seen;
  for (const std::string &F : Files) {
    if (!Seen.insert({F, true}).second)
      continue;
    fs::file_status S;
    if (fs::status(F, S) || !fs::is_regular_file(S))
      return; // a file the run read is gone: nothing reliable to store
    std::string Hash = Hasher.hash(F);
    if (Hash.empty())
      return;
    FilesJson.push_back(json::Object{{"path", F},
                                     {"size", int64_t(S.getSize())},
                                     {"mtime", mtimeNs(S)},
                                     {"hash", Hash}});
  }
  json::Object O{{"version", 1},
                 {"seconds", E.Seconds},
                 {"fixes", E.ExportedFixes},
                 {"files", std::move(FilesJson)}};
  if (!E.Summaries.empty())
    O["summaries"] = E.Summaries;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << json::Value(std::move(O));
  OS.flush();
  llvm::consumeError(writeFileAtomicallyIn(entryPath(Key), Text));
}

uint64_t ResultCache::trim(const llvm::StringMap<bool> &Keep) {
  struct File {
    std::string Path;
    uint64_t Size;
    int64_t MTime;
  };
  std::vector<File> Files;
  uint64_t Total = 0;
  std::error_code EC;
  for (fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    fs::file_status S;
    if (fs::status(It->path(), S) || !fs::is_regular_file(S))
      continue;
    Files.push_back({It->path(), S.getSize(), mtimeNs(S)});
    Total += S.getSize();
  }
  if (!MaxBytes || Total <= MaxBytes)
    return Total;
  std::sort(Files.begin(), Files.end(),
            [](const File &A, const File &B) { return std::tie(A.MTime, A.Path) < std::tie(B.MTime, B.Path); });
  uint64_t Goal = MaxBytes / 10 * 8;
  for (const File &F : Files) {
    if (Total <= Goal)
      break;
    if (Keep.count(F.Path))
      continue;
    if (!fs::remove(F.Path))
      Total -= F.Size;
  }
  return Total;
}

void touchFile(llvm::StringRef Path) {
  int FD;
  if (fs::openFileForReadWrite(Path, FD, fs::CD_OpenExisting, fs::OF_None))
    return;
  fs::setLastAccessAndModificationTime(FD, std::chrono::system_clock::now());
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
}

std::optional<uint64_t> parseSize(llvm::StringRef Text) {
  Text = Text.trim();
  uint64_t Scale = 1;
  if (!Text.empty()) {
    switch (llvm::toUpper(Text.back())) {
    case 'K': Scale = 1ull << 10; break;
    case 'M': Scale = 1ull << 20; break;
    case 'G': Scale = 1ull << 30; break;
    default: break;
    }
    if (Scale != 1)
      Text = Text.drop_back();
  }
  uint64_t N;
  if (Text.empty() || Text.getAsInteger(10, N))
    return std::nullopt;
  return N * Scale;
}

} // namespace libtorch_tidy
