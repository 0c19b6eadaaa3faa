//===--- CompileDatabase.cpp ----------------------------------------------===//
#include "CompileDatabase.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

namespace libtorch_tidy {

using llvm::createStringError;
using llvm::inconvertibleErrorCode;

static std::string absolute(llvm::StringRef Path, llvm::StringRef Base) {
  llvm::SmallString<256> P(Path);
  if (!llvm::sys::path::is_absolute(P)) {
    llvm::SmallString<256> B(Base);
    llvm::sys::path::append(B, P);
    P = B;
  }
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

llvm::Expected<std::string> findCompileDatabase(llvm::StringRef BuildDir, llvm::StringRef From) {
  if (!BuildDir.empty()) {
    llvm::SmallString<256> P(BuildDir);
    if (!llvm::sys::fs::is_directory(P) && llvm::sys::path::filename(P) == "compile_commands.json")
      P = llvm::sys::path::parent_path(BuildDir);
    if (!llvm::sys::fs::is_directory(P))
      return createStringError(inconvertibleErrorCode(),
                               "build directory '%s' does not exist: no compile_commands.json there",
                               BuildDir.str().c_str());
    llvm::sys::path::append(P, "compile_commands.json");
    if (!llvm::sys::fs::exists(P))
      return createStringError(inconvertibleErrorCode(),
                               "no compile_commands.json in '%s' (configure the project with "
                               "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)",
                               BuildDir.str().c_str());
    return std::string(P);
  }
  llvm::SmallString<256> Dir(From);
  if (Dir.empty())
    llvm::sys::fs::current_path(Dir);
  else
    llvm::sys::fs::make_absolute(Dir);
  for (llvm::StringRef D = Dir; !D.empty(); D = llvm::sys::path::parent_path(D)) {
    for (const char *Sub : {"", "build"}) {
      llvm::SmallString<256> P(D);
      llvm::sys::path::append(P, Sub, "compile_commands.json");
      if (llvm::sys::fs::exists(P))
        return std::string(P);
    }
  }
  if (!From.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no compile_commands.json in %s, its build/ or above; name the build "
                             "directory with -p",
                             From.str().c_str());
  return createStringError(inconvertibleErrorCode(),
                           "no compile_commands.json here, in build/ or above; name the build "
                           "directory with -p");
}

llvm::Expected<CompileDatabase> loadCompileDatabase(llvm::StringRef JsonPath) {
  auto Fail = [&](const llvm::Twine &Why) {
    return createStringError(inconvertibleErrorCode(), "%s: malformed compile database: %s",
                             JsonPath.str().c_str(), Why.str().c_str());
  };
  auto Buf = llvm::MemoryBuffer::getFile(JsonPath);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read %s: %s", JsonPath.str().c_str(),
                             Buf.getError().message().c_str());
  auto Json = llvm::json::parse((*Buf)->getBuffer());
  if (!Json) {
    std::string Msg = llvm::toString(Json.takeError());
    return Fail(Msg);
  }
  const llvm::json::Array *Entries = Json->getAsArray();
  if (!Entries)
    return Fail("the top level is not an array");

  CompileDatabase Db;
  Db.Path = absolute(JsonPath, ".");
  {
    llvm::SmallString<256> Cwd;
    llvm::sys::fs::current_path(Cwd);
    Db.Path = absolute(JsonPath, Cwd);
  }
  Db.Directory = llvm::sys::path::parent_path(Db.Path).str();
  llvm::StringSet<> Seen;
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  size_t Index = 0;
  for (const llvm::json::Value &V : *Entries) {
    ++Index;
    const llvm::json::Object *O = V.getAsObject();
    if (!O)
      return Fail("entry " + llvm::Twine(Index) + " is not an object");
    auto Directory = O->getString("directory");
    auto File = O->getString("file");
    if (!Directory || !File)
      return Fail("entry " + llvm::Twine(Index) + " lacks \"directory\" or \"file\"");
    CompileCommand C;
    C.Database = Db.Directory;
    C.Directory = absolute(*Directory, Db.Directory);
    C.File = absolute(*File, C.Directory);
    if (const llvm::json::Array *Args = O->getArray("arguments")) {
      for (const llvm::json::Value &A : *Args) {
        auto S = A.getAsString();
        if (!S)
          return Fail("entry " + llvm::Twine(Index) + " has a non-string argument");
        C.Arguments.push_back(S->str());
      }
    } else if (auto Command = O->getString("command")) {
      llvm::SmallVector<const char *, 64> Argv;
      llvm::cl::TokenizeGNUCommandLine(*Command, Saver, Argv);
      for (const char *A : Argv)
        C.Arguments.push_back(A);
    } else {
      return Fail("entry " + llvm::Twine(Index) + " has neither \"arguments\" nor \"command\"");
    }
    if (C.Arguments.empty())
      return Fail("entry " + llvm::Twine(Index) + " has an empty command");
    if (Seen.insert(C.File).second)
      Db.Commands.push_back(std::move(C));
  }
  return Db;
}

const CompileCommand *commandFor(const CompileDatabase &Db, llvm::StringRef File) {
  for (const CompileCommand &C : Db.Commands)
    if (C.File == File)
      return &C;
  return nullptr;
}

std::vector<std::string> compileFlags(const CompileCommand &Command) {
  std::vector<std::string> Flags;
  const std::vector<std::string> &A = Command.Arguments;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    if (Arg == "-o" || Arg == "-MF" || Arg == "-MT" || Arg == "-MQ") {
      ++I;
      continue;
    }
    if (Arg == "-c" || Arg == "-MD" || Arg == "-MMD" || Arg == "-MP" ||
        (Arg.starts_with("-o") && Arg.size() > 2))
      continue;
    if (!Arg.starts_with("-") && absolute(Arg, Command.Directory) == Command.File)
      continue;
    Flags.push_back(Arg.str());
  }
  return Flags;
}

} // namespace libtorch_tidy
