//===--- Toolchain.cpp ----------------------------------------------------===//
#include "Toolchain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

namespace libtorch_tidy {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

unsigned pluginLLVMMajor() { return LIBTORCH_TIDY_LLVM_MAJOR; }
const char *toolVersion() { return LIBTORCH_TIDY_VERSION; }

static int SelfAnchor;
std::string selfPath() {
  return llvm::sys::fs::getMainExecutable("libtorch-tidy", reinterpret_cast<void *>(&SelfAnchor));
}

std::string besideSelf(llvm::StringRef Relative) {
  llvm::SmallString<256> P(llvm::sys::path::parent_path(selfPath()));
  llvm::sys::path::append(P, Relative);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

llvm::Expected<std::string> findPlugin(llvm::StringRef Override) {
  std::string Chosen = Override.str();
  if (Chosen.empty())
    if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_PLUGIN"))
      Chosen = *Env;
  if (!Chosen.empty()) {
    if (!llvm::sys::fs::exists(Chosen))
      return createStringError(inconvertibleErrorCode(), "plugin '%s' does not exist", Chosen.c_str());
    return Chosen;
  }
  for (llvm::StringRef Rel : {llvm::StringRef(LIBTORCH_TIDY_PLUGIN_RELPATH),
                              llvm::StringRef("../lib/LibTorchTidy.so")}) {
    std::string P = besideSelf(Rel);
    if (llvm::sys::fs::exists(P))
      return P;
  }
  return createStringError(inconvertibleErrorCode(),
                           "LibTorchTidy.so not found beside %s (expected %s); name it with "
                           "--plugin or LIBTORCH_TIDY_PLUGIN",
                           selfPath().c_str(), besideSelf("../lib/LibTorchTidy.so").c_str());
}

/// The major version `clang-tidy --version` reports, 0 when unknown.
static unsigned clangTidyMajor(llvm::StringRef Tidy, std::string &Text) {
  ProcessResult R = runProcess(Tidy, {Tidy.str(), "--version"}, 60);
  Text = R.Output;
  llvm::SmallVector<llvm::StringRef, 2> M;
  if (R.ExitCode != 0 || !llvm::Regex("version ([0-9]+)\\.").match(R.Output, &M))
    return 0;
  unsigned V = 0;
  M[1].getAsInteger(10, V);
  return V;
}

llvm::Expected<std::string> findClangTidy(llvm::StringRef Override) {
  std::string Chosen = Override.str();
  std::string Source = "--clang-tidy";
  if (Chosen.empty())
    if (auto Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_CLANG_TIDY")) {
      Chosen = *Env;
      Source = "LIBTORCH_TIDY_CLANG_TIDY";
    }
  std::string Major = std::to_string(pluginLLVMMajor());
  if (Chosen.empty()) {
    Source.clear();
    if (llvm::sys::fs::can_execute(LIBTORCH_TIDY_CLANG_TIDY_PATH))
      Chosen = LIBTORCH_TIDY_CLANG_TIDY_PATH;
    else if (auto P = llvm::sys::findProgramByName("clang-tidy-" + Major))
      Chosen = *P;
    else if (auto P = llvm::sys::findProgramByName("clang-tidy"))
      Chosen = *P;
    else
      return createStringError(inconvertibleErrorCode(),
                               "clang-tidy %s not found (install clang-tidy-%s, or name it with "
                               "--clang-tidy or LIBTORCH_TIDY_CLANG_TIDY)",
                               Major.c_str(), Major.c_str());
  } else if (!llvm::sys::path::has_parent_path(Chosen)) {
    if (auto P = llvm::sys::findProgramByName(Chosen))
      Chosen = *P;
  }
  if (!llvm::sys::fs::can_execute(Chosen))
    return createStringError(inconvertibleErrorCode(), "clang-tidy '%s'%s is not an executable",
                             Chosen.c_str(), Source.empty() ? "" : (" (from " + Source + ")").c_str());
  std::string Text;
  unsigned Found = clangTidyMajor(Chosen, Text);
  if (Found != pluginLLVMMajor()) {
    // Point at the libtorch-tidy of the found version when there is one.
    llvm::SmallVector<llvm::StringRef, 4> Supported;
    llvm::StringRef(LIBTORCH_TIDY_SUPPORTED_LLVM).split(Supported, ',', -1, false);
    std::string FoundText = Found ? std::to_string(Found) : "of an unknown version";
    std::string Hint = llvm::is_contained(Supported, std::to_string(Found))
                           ? ", or use the libtorch-tidy built for clang-tidy " + FoundText +
                                 " (package libtorch-tidy-llvm" + FoundText + ")"
                           : " (libtorch-tidy builds for clang-tidy " +
                                 llvm::join(Supported.begin(), Supported.end(), " and ") + ")";
    return createStringError(
        inconvertibleErrorCode(),
        "%s is clang-tidy %s, but the plugin was built for clang-tidy %s and loads into no other; "
        "name a clang-tidy %s with --clang-tidy or LIBTORCH_TIDY_CLANG_TIDY%s",
        Chosen.c_str(), FoundText.c_str(), Major.c_str(), Major.c_str(), Hint.c_str());
  }
  return Chosen;
}

std::string findDocsDir() {
  for (std::string Dir : {besideSelf(LIBTORCH_TIDY_DOCS_RELPATH), std::string(LIBTORCH_TIDY_SOURCE_DOCS)}) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, "checks");
    if (llvm::sys::fs::is_directory(P))
      return Dir;
  }
  return {};
}

// The base of the check pages' links: the environment's LIBTORCH_TIDY_DOCS_URL
// when set, else the configured one (by default the published pages of this
// version); empty means the local docs.
static std::string docsBaseUrl() {
  if (std::optional<std::string> Env = llvm::sys::Process::GetEnv("LIBTORCH_TIDY_DOCS_URL"))
    return *Env;
  return LIBTORCH_TIDY_DOCS_URL;
}

std::string docsLink(llvm::StringRef Check) {
  if (Check.starts_with("torch-")) {
    std::string BaseText = docsBaseUrl();
    llvm::StringRef Base = BaseText;
    if (!Base.empty())
      return (Base.rtrim('/') + "/checks/" + Check + ".md").str();
    std::string Dir = findDocsDir();
    if (Dir.empty())
      return {};
    return "file://" + llvm::sys::path::convert_to_slash(Dir) + "/checks/" + Check.str() + ".md";
  }
  if (Check.starts_with("clang-diagnostic") || Check.empty())
    return {};
  // clang-tidy's own checks: group/name.html
  auto [Group, Name] = Check.split('-');
  if (Group == "clang" && Name.starts_with("analyzer-"))
    return "https://clang.llvm.org/extra/clang-tidy/checks/clang-analyzer/" +
           Name.drop_front(9).str() + ".html";
  return "https://clang.llvm.org/extra/clang-tidy/checks/" + Group.str() + "/" + Name.str() + ".html";
}

} // namespace libtorch_tidy
