//===--- Baseline.cpp -----------------------------------------------------===//
#include "Baseline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace libtorch_tidy {

static std::string collapseWhitespace(llvm::StringRef Text) {
  std::string Out;
  bool Space = false;
  for (char C : Text.trim()) {
    if (llvm::isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space && !Out.empty())
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

void computeFingerprints(std::vector<Finding> &Findings, SourceCache &Sources, llvm::StringRef Root) {
  std::map<std::string, unsigned> Occurrences;
  for (Finding &F : Findings) {
    std::string Key = F.Check + '\0' + displayPath(F.Loc.File, Root) + '\0' +
                      collapseWhitespace(Sources.lineText(F.Loc.File, F.Loc.Line));
    if (F.Loc.Line == 0) // no line to anchor to: the message identifies it
      Key += '\0' + F.Message;
    unsigned Index = Occurrences[Key]++;
    Key += '\0' + std::to_string(Index);
    auto Hash = llvm::SHA1::hash(llvm::arrayRefFromStringRef(Key));
    F.Fingerprint = llvm::toHex(llvm::ArrayRef<uint8_t>(Hash).take_front(16), /*LowerCase=*/true);
  }
}

llvm::Expected<llvm::StringSet<>> readBaseline(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read baseline %s: %s", Path.str().c_str(),
                                   Buf.getError().message().c_str());
  auto Json = llvm::json::parse((*Buf)->getBuffer());
  if (!Json) {
    std::string Msg = llvm::toString(Json.takeError());
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: malformed baseline: %s",
                                   Path.str().c_str(), Msg.c_str());
  }
  const llvm::json::Object *O = Json->getAsObject();
  const llvm::json::Array *Items = O ? O->getArray("findings") : nullptr;
  if (!Items)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: malformed baseline: no \"findings\" array", Path.str().c_str());
  llvm::StringSet<> Result;
  for (const llvm::json::Value &V : *Items)
    if (const llvm::json::Object *Item = V.getAsObject())
      if (auto FP = Item->getString("fingerprint"))
        Result.insert(*FP);
  return Result;
}

std::string baselineText(const std::vector<Finding> &Findings, llvm::StringRef Root) {
  llvm::json::Array Items;
  for (const Finding &F : Findings)
    Items.push_back(llvm::json::Object{{"fingerprint", F.Fingerprint},
                                       {"check", F.Check},
                                       {"file", displayPath(F.Loc.File, Root)},
                                       {"line", F.Loc.Line},
                                       {"message", F.Message}});
  llvm::json::Object Doc{{"tool", "libtorch-tidy"}, {"version", 1}, {"findings", std::move(Items)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Doc))) << "\n";
  return Text;
}

} // namespace libtorch_tidy
