//===--- NameParts.h - libtorch-tidy ----------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::torch_check {

/// Splits an identifier into lower-case words: "run_validation" ->
/// {run, validation}; "testEpoch" -> {test, epoch}; "HTTPServer2" ->
/// {http, server, 2}.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name);

} // namespace clang::tidy::torch_check

#endif // LIBTORCH_TIDY_CHECKS_UTILS_NAMEPARTS_H
