//===--- Server.h - libtorch-tidy lsp: torch- findings in the editor ------===//
//
// A Language Server Protocol server over stdio that runs beside clangd
// (clangd cannot load clang-tidy plugins). It owns no analysis of its own:
// every analysis is a child process of this very executable, the analyze
// command with its JSON report (`libtorch-tidy --format=json --all FILE`),
// so the precompiled LibTorch header, the results cache and the .clang-tidy
// configuration apply exactly as on the command line, and cancelling is
// killing the child's process group.
//
//   didOpen/didSave  -> schedule(file): one run per file at a time; a newer
//                       save kills the older run; pending runs wait in a
//                       bounded queue (the oldest is dropped when full).
//   first            -> `libtorch-tidy lsp --prepare-pch UNIT`, also a child:
//                       the precompiled LibTorch header of the unit, built
//                       once into the cache where the analysis finds it.
//   a header         -> analysed through a translation unit of the compile
//                       database that includes it (Prefilter's include scan).
//   didChange        -> the buffer is no longer what was analysed: the
//                       published findings are marked stale, no quick fix is
//                       offered until the next save. Nothing is guessed.
//   codeAction       -> the finding's fix-it (the replacements `--fix`
//                       applies), a NOLINT comment, all fix-its of the file.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LSP_SERVER_H
#define LIBTORCH_TIDY_DRIVER_LSP_SERVER_H

#include "lsp/JsonRpc.h"
#include <memory>
#include <string>
#include <vector>

namespace libtorch_tidy::lsp {

/// Settings from the command line, overridden by initializationOptions.
struct ServerOptions {
  std::string Self;          // this executable (the analyses run it)
  std::string BuildDir;      // holds compile_commands.json; empty: the workspace's
  std::string Plugin;        // LibTorchTidy.so; empty: the driver's default
  std::string ClangTidy;     // empty: the driver's default
  std::string Checks;        // empty: the .clang-tidy's, else -*,torch-*
  std::vector<std::string> ExtraArgs;
  std::vector<std::string> Loads; // the user's own clang-tidy modules (--load)
  bool Pch = true;            // prepare the precompiled LibTorch header first
  unsigned Jobs = 1;         // analyses running at once (different files)
  unsigned QueueLimit = 8;   // files waiting for an analysis
};

class Server {
public:
  Server(ServerOptions Options, Transport &T);
  ~Server();
  /// Serves until `exit` or the end of input; the process exit code.
  int run();

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace libtorch_tidy::lsp

#endif
