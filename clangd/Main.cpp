//===--- Main.cpp - libtorch-tidy-clangd ----------------------------------===//
//
// clangd with the torch- checks built in: clangd's own entry point, linked
// with the checks' module (TorchTidyModule.cpp registers it with clang-tidy's
// module registry, as every module clangd links does). clangd then runs the
// torch- checks with its own: on every reparse of an open file, unsaved text
// included, with its precompiled preamble, and offers their fix-its as quick
// fixes. Everything else is clangd's (its options, --help, completion,
// navigation, its diagnostics).
//
// Which checks run is clangd's configuration: the project's .clang-tidy or
// clangd's `Diagnostics: ClangTidy`, and its fast-check filter
// (docs/editors.md). What clangd does not do: the checks read the linked
// summaries of other files from the build's cache (SummaryLocation.h).
//
//===----------------------------------------------------------------------===//

#include "SummaryLocation.h"

#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace clang::clangd {
// clang-tools-extra/clangd/tool/ClangdMain.h, which LLVM's packages do not
// install; defined in libclangdMain.a.
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

/// clangd finds Clang's own headers (stddef.h, the intrinsics) in the
/// resource directory beside its executable (../lib/clang/N), which the build
/// tree and a prefix other than LLVM's do not have: unless the command line
/// names one, use LLVM's, the one clang-tidy-N uses.
static bool namesResourceDir(int argc, char *argv[]) {
  for (int I = 1; I < argc; ++I)
    if (std::strncmp(argv[I], "--resource-dir", 14) == 0 ||
        std::strncmp(argv[I], "-resource-dir", 13) == 0)
      return true;
  return false;
}

int main(int argc, char *argv[]) {
  std::vector<char *> Args(argv, argv + argc);
  std::string ResourceDir = "--resource-dir=" LIBTORCH_TIDY_CLANG_RESOURCE_DIR;
  struct stat St;
  if (!namesResourceDir(argc, argv) && ::stat(LIBTORCH_TIDY_CLANG_RESOURCE_DIR, &St) == 0)
    Args.insert(Args.begin() + 1, ResourceDir.data());
  Args.push_back(nullptr);
  // The cross-file summaries that `libtorch-tidy --cross-tu` or `summarize`
  // last linked for the file's build, unless the options name a file.
  clang::tidy::torch_check::locateSummariesBesideCompileDatabase();
  return clang::clangd::clangdMain(static_cast<int>(Args.size()) - 1, Args.data());
}
