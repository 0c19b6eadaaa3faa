//===--- NameParts.h - libtorch-tidy ----------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
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
class WordPattern {
public:
  explicit WordPattern(llvm::StringRef Pattern) : Regex(Pattern, llvm::Regex::IgnoreCase) {}
  bool isValid(std::string &Error) const { return Regex.isValid(Error); }
  bool matchesWordOf(llvm::StringRef Name);

private:
  llvm::Regex Regex;
  llvm::StringMap<bool> Memo;
};

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
