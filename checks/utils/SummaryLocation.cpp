//===--- SummaryLocation.cpp - libtorch-tidy ------------------------------===//

#include "SummaryLocation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <atomic>

namespace clang::tidy::torch_check {

static std::atomic<bool> Locating{false};

void locateSummariesBesideCompileDatabase() { Locating = true; }

/// DIR/.libtorch-tidy-cache/summaries.json (or $LIBTORCH_TIDY_CACHE_DIR's)
/// when DIR holds compile_commands.json and that file exists.
static bool summariesOfBuild(llvm::StringRef Dir, std::string &Out) {
  llvm::SmallString<256> Db(Dir);
  llvm::sys::path::append(Db, "compile_commands.json");
  if (!llvm::sys::fs::exists(Db))
    return false;
  llvm::SmallString<256> Path;
  if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CACHE_DIR"); Env && !Env->empty())
    Path = *Env;
  else
    llvm::sys::path::append(Path, Dir, CacheDirName);
  llvm::sys::path::append(Path, LatestSummariesName);
  if (llvm::sys::fs::exists(Path))
    Out = std::string(Path);
  return true; // the build is found, with or without summaries
}

std::string locatedSummaries(llvm::StringRef File) {
  if (!Locating || File.empty())
    return {};
  llvm::SmallString<256> Abs(File);
  llvm::sys::fs::make_absolute(Abs);
  std::string Out;
  // The file's directory and its parents, each with its build/: the first
  // that holds compile_commands.json is the build (clangd's order).
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(Abs); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    if (summariesOfBuild(Dir, Out))
      return Out;
    llvm::SmallString<256> Build(Dir);
    llvm::sys::path::append(Build, "build");
    if (summariesOfBuild(Build, Out))
      return Out;
  }
  return {};
}

} // namespace clang::tidy::torch_check
