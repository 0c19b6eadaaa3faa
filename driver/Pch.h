//===--- Pch.h - One precompiled LibTorch header per set of flags ---------===//
//
// Parsing <torch/torch.h> is most of what a clang-tidy run costs. The driver
// precompiles, with the clang of clang-tidy's own LLVM installation, the
// LibTorch headers that translation units include first, once per distinct
// header list and compile flags (include directories, language standard,
// defines: the whole command but its input and output), in the cache
// directory, and runs each of those translation units with `-include-pch`.
//
// A precompiled header is the same as its text included before the main
// file, so it applies only where the main file starts with it: the plan takes
// the leading #include lines of the file (comments and blank lines between
// them allowed) up to the last LibTorch one, all angled, and of those only the
// LibTorch ones when the others are standard library headers, which LibTorch's
// headers do not depend on: one precompiled header then serves files that list
// different standard headers before <torch/torch.h>; anything else before
// (a #define, an #if, a quoted project header) makes the translation unit a
// plain parse, as do forced includes (-include, -imacros), modules and an
// explicit -x. The main file includes those headers again, which their
// include guards make a no-op. A run with the precompiled header that reports
// a compiler error (a stale or incompatible PCH, a header without include
// guard) is run again without it, so it never changes what is reported.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_PCH_H
#define LIBTORCH_TIDY_DRIVER_PCH_H

#include "CompileDatabase.h"
#include "ResultCache.h"
#include "llvm/ADT/StringMap.h"
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace libtorch_tidy {

struct PchPlan {
  bool Usable = false;
  std::string WhyNot;              // when not usable
  std::string Prefix;              // the header: the leading #include lines
  std::vector<std::string> Flags;  // the command without compiler, input, output, -c, -M*
  std::string Directory;           // where the command runs
  std::string Key;                 // hash of the compiler, Prefix, Directory and Flags
};

/// The plan for one translation unit; ExtraArgs are the driver's --extra-arg.
/// ClangId names the compiler (path and version) in the key.
PchPlan planPch(const CompileCommand &Command, llvm::ArrayRef<std::string> ExtraArgs,
                llvm::StringRef ClangId);

/// The header to precompile for a main file: its leading #include lines up
/// to the last LibTorch one, or only the LibTorch ones when the others are
/// standard library headers (so that files listing different ones share it);
/// empty with the reason when the file does not start that way.
std::string pchPrefix(llvm::StringRef Source, std::string &WhyNot);

/// The #include lines of a forced header (-include) whose every line includes
/// LibTorch or the standard library (at least one LibTorch header), as
/// CMake's cmake_pch.hxx and build-made wrapper headers do; nullopt for any
/// other header (its code or macros could change what LibTorch means).
std::optional<std::string> libTorchForcedInclude(llvm::StringRef Text);

/// Whether a prebuilt precompiled LibTorch header (--pch-file) may be
/// included before the translation unit: its first #include other than
/// standard library ones is a LibTorch one, directly or through quoted
/// headers that start the same way (an include guard and #pragma once
/// allowed), so LibTorch is the first thing it parses. Else false, with the
/// reason.
bool startsWithLibTorch(const CompileCommand &Command, std::string &WhyNot);

/// Whether an angled #include names a C++ or C standard library header.
bool isStandardLibraryHeader(llvm::StringRef Name);

/// The clang++ beside clang-tidy (same LLVM installation), empty when none.
std::string clangBesideTidy(llvm::StringRef ClangTidy);

/// Builds and finds the precompiled headers of one run, each once (threads
/// needing the same one wait for it). Files live in DIR/pch/<key>.{h,pch,deps}.
class PchStore {
public:
  PchStore(std::string Dir, std::string Clang) : Dir(std::move(Dir)), Clang(std::move(Clang)) {}

  struct Built {
    bool Ok = false;
    std::string Pch;                // path of the .pch
    std::vector<std::string> Files; // the headers it holds (for the result cache)
    std::string Error;              // when not Ok: the first error line
    bool BuiltNow = false;          // built by this run (not found in the cache)
  };
  /// The PCH of Plan, built now when missing.
  Built get(const PchPlan &Plan);
  /// Whether the PCH of Plan is already in the cache directory.
  bool exists(const PchPlan &Plan) const;
  /// Forget a PCH that clang-tidy rejected (deleted, rebuilt on next use).
  void discard(const PchPlan &Plan);
  /// Paths of the files used by this run (kept by ResultCache::trim).
  void usedFiles(llvm::StringMap<bool> &Out);

private:
  struct Slot {
    std::once_flag Once;
    Built Result;
    std::atomic<bool> Rejected{false};
  };
  std::string path(const PchPlan &Plan, llvm::StringRef Ext) const;
  Built build(const PchPlan &Plan);
  std::string Dir;
  std::string Clang;
  std::mutex Mutex;
  llvm::StringMap<std::unique_ptr<Slot>> Slots;
};

} // namespace libtorch_tidy

#endif
