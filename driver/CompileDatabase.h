//===--- CompileDatabase.h - compile_commands.json, read once -------------===//
#ifndef LIBTORCH_TIDY_DRIVER_COMPILEDATABASE_H
#define LIBTORCH_TIDY_DRIVER_COMPILEDATABASE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace libtorch_tidy {

/// One translation unit of the compile database.
struct CompileCommand {
  std::string File;                   // absolute, normalized
  std::string Directory;              // absolute
  std::vector<std::string> Arguments; // argv, the compiler first
  std::string Database;               // the directory of the compile_commands.json listing it
};

struct CompileDatabase {
  std::string Directory; // the directory holding compile_commands.json
  std::string Path;      // .../compile_commands.json
  /// One entry per file (the first when a file is compiled several times).
  std::vector<CompileCommand> Commands;
};

/// Finds compile_commands.json: in BuildDir when given, else in From (the
/// current directory when empty) or its build/ subdirectory, or in a parent
/// directory or its build/ subdirectory. Errors are one line.
llvm::Expected<std::string> findCompileDatabase(llvm::StringRef BuildDir, llvm::StringRef From = "");

/// The command of File (absolute, normalized), or null.
const CompileCommand *commandFor(const CompileDatabase &Db, llvm::StringRef File);

/// The flags of Command without the compiler, the source, -c, -o and the
/// dependency-file options: what compiles another copy of the source.
std::vector<std::string> compileFlags(const CompileCommand &Command);

/// Reads and validates the database; errors are one line.
llvm::Expected<CompileDatabase> loadCompileDatabase(llvm::StringRef JsonPath);

} // namespace libtorch_tidy

#endif
