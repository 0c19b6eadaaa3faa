//===--- NameParts.cpp - libtorch-tidy ------------------------------------===//

#include "NameParts.h"

#include "llvm/ADT/StringExtras.h"

namespace clang::tidy::torch_check {

llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words;
  std::string Current;
  auto Flush = [&] {
    if (!Current.empty())
      Words.push_back(llvm::StringRef(Current).lower());
    Current.clear();
  };
  for (size_t I = 0, E = Name.size(); I != E; ++I) {
    char C = Name[I];
    if (!llvm::isAlnum(C)) {
      Flush();
      continue;
    }
    if (!Current.empty()) {
      char Prev = Current.back();
      bool Boundary =
          (llvm::isLower(Prev) && llvm::isUpper(C)) || (llvm::isDigit(Prev) != llvm::isDigit(C)) ||
          // "HTTPServer": the last capital of a run starts the next word.
          (llvm::isUpper(Prev) && llvm::isUpper(C) && I + 1 < E && llvm::isLower(Name[I + 1]));
      if (Boundary)
        Flush();
    }
    Current.push_back(C);
  }
  Flush();
  return Words;
}

WordPattern::WordPattern(llvm::StringRef Pattern) : Regex(Pattern, llvm::Regex::IgnoreCase) {
  llvm::StringRef Inner = Pattern;
  if (!Inner.consume_front("^(") || !Inner.consume_back(")$") || Inner.empty())
    return;
  llvm::SmallVector<llvm::StringRef, 16> Words;
  Inner.split(Words, '|');
  for (llvm::StringRef Word : Words)
    if (Word.empty() || !llvm::all_of(Word, [](char C) { return llvm::isAlnum(C) || C == '_'; }))
      return;
  for (llvm::StringRef Word : Words)
    Literals.insert(Word.lower());
}

bool WordPattern::matchesWord(llvm::StringRef Word) const {
  if (!Literals.empty())
    return Literals.contains(Word.lower());
  return Regex.match(Word);
}

bool WordPattern::matchesWordOf(llvm::StringRef Name) {
  // Remembered per word: names differ (evaluate_epoch, evaluate_batch), their
  // words repeat.
  for (const std::string &Word : identifierWords(Name)) {
    auto [It, New] = Memo.try_emplace(Word, false);
    if (New)
      It->second = matchesWord(Word);
    if (It->second)
      return true;
  }
  return false;
}

} // namespace clang::tidy::torch_check
