//===--- Project.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// An executable target of a CMake build, for `libtorch-tidy verify --target`:
// the command that links it, taken from the build system (Ninja's
// `-t commands TARGET`, or the Makefile generator's CMakeFiles/TARGET.dir/
// link.txt), and the translation units of compile_commands.json whose objects
// that command links. verify recompiles some of those units from copies and
// relinks the target with the copies' objects in place of the project's own.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_VERIFY_PROJECT_H
#define LIBTORCH_TIDY_DRIVER_VERIFY_PROJECT_H

#include "CompileDatabase.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace libtorch_tidy::verify {

/// One translation unit of a target: its compile command and its object.
struct TargetUnit {
  CompileCommand Command;
  std::string Object; ///< absolute path of the object the project builds
};

struct Target {
  std::string Name;
  std::string Generator;              ///< "Ninja" or "Unix Makefiles"
  std::string LinkDirectory;          ///< where the link command runs
  std::vector<std::string> Link;      ///< the link command, the compiler first
  std::vector<TargetUnit> Units;      ///< the linked objects that compile_commands.json builds
};

/// Why a target cannot be used.
struct TargetError {
  enum Kind { NoSuchTarget, NotExecutable, BuildSystem } What;
  std::string Message;
};

/// Finds executable target \p Name of the CMake build in \p BuildDir, whose
/// compile database is \p Db. On failure, \p Error says why (one line).
bool findTarget(llvm::StringRef BuildDir, llvm::StringRef Name, const CompileDatabase &Db,
                Target &Out, TargetError &Error);

/// The object that \p Command writes (its -o), absolute; empty when none.
std::string objectOf(const CompileCommand &Command);

/// \p T's link command writing \p Output instead of the target's program,
/// with the objects in \p Swaps (project object -> replacement) replaced and
/// \p Extra appended.
std::vector<std::string> relinkCommand(const Target &T,
                                       const std::map<std::string, std::string> &Swaps,
                                       llvm::StringRef Output, llvm::ArrayRef<std::string> Extra);

/// \p U's compile command compiling \p Source into \p Object, with \p Extra
/// before the source (include directories).
std::vector<std::string> recompileCommand(const TargetUnit &U, llvm::StringRef Source,
                                          llvm::StringRef Object,
                                          llvm::ArrayRef<std::string> Extra);

} // namespace libtorch_tidy::verify

#endif // LIBTORCH_TIDY_DRIVER_VERIFY_PROJECT_H
