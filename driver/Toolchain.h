//===--- Toolchain.h - The clang-tidy, plugin and docs the command uses ---===//
//
// The plugin is found relative to the command (../lib/LibTorchTidy.so, or the
// install layout's libdir), the docs relative to the command
// (../share/doc/libtorch-tidy) or, in the build tree, in the source tree.
// clang-tidy is the one named by --clang-tidy, $LIBTORCH_TIDY_CLANG_TIDY, the
// one found at configure time, or clang-tidy-<major> on PATH; its major
// version must be the plugin's.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_TOOLCHAIN_H
#define LIBTORCH_TIDY_DRIVER_TOOLCHAIN_H

#include "Process.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

/// The LLVM major version the plugin was built against.
unsigned pluginLLVMMajor();
const char *toolVersion();

/// The running executable's path (argv0 resolved).
std::string selfPath();
/// \p Relative resolved against the directory of the running executable.
std::string besideSelf(llvm::StringRef Relative);

llvm::Expected<std::string> findPlugin(llvm::StringRef Override);
/// The clang-tidy to use, already checked to be of pluginLLVMMajor().
llvm::Expected<std::string> findClangTidy(llvm::StringRef Override);
/// The docs directory (holding checks/<id>.md); empty when none is found.
std::string findDocsDir();
/// Link to a check's documentation, for reports: the published page of this
/// version by default, a file:// link to the local docs when the base URL
/// (configured, or LIBTORCH_TIDY_DOCS_URL in the environment) is empty.
std::string docsLink(llvm::StringRef Check);

} // namespace libtorch_tidy

#endif
