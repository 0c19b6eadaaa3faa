// Fuzz target: compile_commands.json as the driver loads it.
#include "CompileDatabase.h"
#include "FuzzUtil.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Path = libtorch_tidy::fuzz::writeInput("build/compile_commands.json", Data, Size);
  auto Db = libtorch_tidy::loadCompileDatabase(Path);
  if (!Db) {
    llvm::consumeError(Db.takeError());
    return 0;
  }
  for (const auto &C : Db->Commands)
    if (C.File.empty() || C.Arguments.empty()) // the loader's promise: a file and a compiler
      __builtin_trap();
  return 0;
}
