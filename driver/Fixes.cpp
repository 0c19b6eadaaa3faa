//===--- Fixes.cpp --------------------------------------------------------===//
#include "Fixes.h"
#include "AtomicWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <tuple>

namespace libtorch_tidy {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

static bool overlaps(const Replacement &A, const Replacement &B) {
  if (A.File != B.File)
    return false;
  // Two insertions at one offset conflict unless identical (handled before).
  if (A.Offset == B.Offset)
    return true;
  unsigned AEnd = A.Offset + A.Length, BEnd = B.Offset + B.Length;
  return A.Offset < BEnd && B.Offset < AEnd;
}

FixPlan planFixes(const std::vector<Finding> &Findings) {
  FixPlan Plan;
  for (const Finding &F : Findings) {
    if (F.Fix.empty())
      continue;
    std::vector<const Replacement *> New;
    bool Conflict = false;
    for (const Replacement &R : F.Fix) {
      auto &Accepted = Plan.Files[R.File];
      bool Duplicate = false;
      for (const Replacement &A : Accepted) {
        if (A == R) {
          Duplicate = true;
          break;
        }
        if (overlaps(A, R))
          Conflict = true;
      }
      if (!Duplicate)
        New.push_back(&R);
    }
    // Replacements of one fix-it must not overlap each other either.
    for (size_t I = 0; I < New.size() && !Conflict; ++I)
      for (size_t J = I + 1; J < New.size(); ++J)
        if (!(*New[I] == *New[J]) && overlaps(*New[I], *New[J]))
          Conflict = true;
    if (Conflict) {
      Plan.Conflicting.push_back(&F);
      continue;
    }
    for (const Replacement *R : New)
      Plan.Files[R->File].push_back(*R);
    Plan.Fixed.push_back(&F);
  }
  for (auto It = Plan.Files.begin(); It != Plan.Files.end();) {
    if (It->second.empty()) {
      It = Plan.Files.erase(It);
      continue;
    }
    std::sort(It->second.begin(), It->second.end(), [](const Replacement &A, const Replacement &B) {
      return std::tie(A.Offset, A.Length) < std::tie(B.Offset, B.Length);
    });
    ++It;
  }
  return Plan;
}

llvm::Expected<std::string> applyReplacements(llvm::StringRef Text,
                                              const std::vector<Replacement> &Replacements) {
  std::string Out;
  Out.reserve(Text.size());
  unsigned Pos = 0;
  for (const Replacement &R : Replacements) {
    if (R.Offset < Pos || R.Offset + R.Length > Text.size())
      return createStringError(inconvertibleErrorCode(),
                               "%s changed since it was analysed (fix at offset %u out of range)",
                               R.File.c_str(), R.Offset);
    Out += Text.slice(Pos, R.Offset);
    Out += R.Text;
    Pos = R.Offset + R.Length;
  }
  Out += Text.substr(Pos);
  return Out;
}

llvm::Expected<unsigned> applyFixPlan(const FixPlan &Plan) {
  std::vector<std::pair<std::string, std::string>> NewTexts;
  for (const auto &[File, Replacements] : Plan.Files) {
    auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf)
      return createStringError(Buf.getError(), "cannot read %s: %s", File.c_str(),
                               Buf.getError().message().c_str());
    auto Text = applyReplacements((*Buf)->getBuffer(), Replacements);
    if (!Text)
      return Text.takeError();
    NewTexts.emplace_back(File, std::move(*Text));
  }
  unsigned Changed = 0;
  for (const auto &[File, Text] : NewTexts) {
    if (auto E = writeFileAtomically(File, Text))
      return E;
    ++Changed;
  }
  return Changed;
}

} // namespace libtorch_tidy
