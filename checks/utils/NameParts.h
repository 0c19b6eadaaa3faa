//===--- NameParts.h - libtorch-tidy ----------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"
#include <string>

namespace clang::tidy::torch_check {

/// Splits an identifier into lower-case words: "run_validation" ->
/// {run, validation}; "testEpoch" -> {test, epoch}; "HTTPServer2" ->
/// {http, server, 2}.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name);

/// A pattern (a check option's regular expression, case-insensitive) that a
/// name matches when one of its words (identifierWords) does. The answer is
/// remembered per word: checks ask it of every function and call.
/// A pattern that lists whole words, `^(eval|test|...)$` (the options'
/// defaults), is answered by a set lookup instead of the regular expression:
/// the same answer without a regex match for every new word.
class WordPattern {
public:
  explicit WordPattern(llvm::StringRef Pattern);
  bool isValid(std::string &Error) const { return Regex.isValid(Error); }
  bool matchesWordOf(llvm::StringRef Name);

private:
  bool matchesWord(llvm::StringRef Word) const;

  llvm::Regex Regex;
  /// The words of a pattern `^(w1|w2|...)$` of letters, digits and
  /// underscores, lower-cased; empty for any other pattern.
  llvm::StringSet<> Literals;
  llvm::StringMap<bool> Memo;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
