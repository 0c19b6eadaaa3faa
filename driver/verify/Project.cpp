//===--- Project.cpp - libtorch-tidy --------------------------------------===//

#include "Project.h"
#include "Toolchain.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace libtorch_tidy::verify {

namespace {

std::string absoluteIn(llvm::StringRef Dir, llvm::StringRef P) {
  llvm::SmallString<256> Abs(P);
  if (!path::is_absolute(Abs)) {
    Abs = Dir;
    path::append(Abs, P);
  }
  path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// CMakeCache.txt's value of \p Key ("" when absent).
std::string cacheValue(llvm::StringRef Cache, llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Cache.split(Lines, '\n');
  for (llvm::StringRef L : Lines) {
    auto [Name, Value] = L.split('=');
    if (Name.split(':').first == Key)
      return Value.rtrim().str();
  }
  return {};
}

std::vector<std::string> tokenize(llvm::StringRef Command) {
  llvm::BumpPtrAllocator Alloc;
  llvm::StringSaver Saver(Alloc);
  llvm::SmallVector<const char *, 64> Tokens;
  llvm::cl::TokenizeGNUCommandLine(Command, Saver, Tokens);
  return std::vector<std::string>(Tokens.begin(), Tokens.end());
}

/// The link step of a generator's command line: CMake's Ninja generator
/// writes ": && c++ ... -o prog ... && :", post-build steps add "&& cmd".
std::vector<std::string> linkStep(llvm::StringRef Line) {
  llvm::SmallVector<llvm::StringRef, 4> Steps;
  Line.split(Steps, "&&");
  for (llvm::StringRef S : Steps) {
    std::vector<std::string> T = tokenize(S.trim());
    if (T.size() > 2 && llvm::is_contained(T, "-o"))
      return T;
  }
  return {};
}

/// A static library's archive step (ar, ranlib) or a shared library's link.
bool isLibraryStep(llvm::StringRef Line) {
  llvm::SmallVector<llvm::StringRef, 4> Steps;
  Line.split(Steps, "&&");
  for (llvm::StringRef S : Steps) {
    std::vector<std::string> T = tokenize(S.trim());
    if (T.empty())
      continue;
    llvm::StringRef Tool = path::filename(T.front());
    if (Tool == "ar" || Tool.ends_with("-ar") || Tool.contains("ranlib") ||
        llvm::is_contained(T, "-shared"))
      return true;
  }
  return false;
}

bool isObject(llvm::StringRef Token) {
  return !Token.starts_with("-") && (Token.ends_with(".o") || Token.ends_with(".obj"));
}

std::string lastLine(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (auto It = Lines.rbegin(); It != Lines.rend(); ++It)
    if (!It->trim().empty())
      return It->trim().str();
  return {};
}

bool fail(TargetError &Error, TargetError::Kind Kind, const llvm::Twine &Message) {
  Error = {Kind, Message.str()};
  return false;
}

} // namespace

std::string objectOf(const CompileCommand &Command) {
  const std::vector<std::string> &A = Command.Arguments;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    if (Arg == "-o" && I + 1 < A.size())
      return absoluteIn(Command.Directory, A[I + 1]);
    if (Arg.starts_with("-o") && Arg.size() > 2)
      return absoluteIn(Command.Directory, Arg.drop_front(2));
  }
  return {};
}

bool findTarget(llvm::StringRef BuildDir, llvm::StringRef Name, const CompileDatabase &Db,
                Target &Out, TargetError &Error) {
  llvm::SmallString<256> BuildAbs(BuildDir);
  fs::make_absolute(BuildAbs);
  std::string Build = absoluteIn("", BuildAbs);
  llvm::SmallString<256> CachePath(Build);
  path::append(CachePath, "CMakeCache.txt");
  auto Cache = llvm::MemoryBuffer::getFile(CachePath);
  if (!Cache)
    return fail(Error, TargetError::BuildSystem,
                "--target needs a CMake build directory: no CMakeCache.txt in '" + Build + "'");
  Out = Target();
  Out.Name = Name.str();
  Out.Generator = cacheValue((*Cache)->getBuffer(), "CMAKE_GENERATOR");
  std::string Line;
  if (Out.Generator == "Ninja") {
    std::string Ninja = cacheValue((*Cache)->getBuffer(), "CMAKE_MAKE_PROGRAM");
    if (Ninja.empty() || !fs::can_execute(Ninja)) {
      auto Found = llvm::sys::findProgramByName("ninja");
      if (!Found)
        return fail(Error, TargetError::BuildSystem, "ninja not found (the build uses the Ninja generator)");
      Ninja = *Found;
    }
    ProcessResult R = runProcess(Ninja, {Ninja, "-C", Build, "-t", "commands", Name.str()}, 120);
    if (R.ExitCode != 0) {
      if (llvm::StringRef(R.Output).contains("unknown target"))
        return fail(Error, TargetError::NoSuchTarget,
                    "no target '" + Name + "' in the build directory '" + Build + "'");
      return fail(Error, TargetError::BuildSystem,
                  "ninja cannot list the commands of '" + Name + "': " + lastLine(R.Output));
    }
    Line = lastLine(R.Output);
    Out.LinkDirectory = Build;
  } else if (Out.Generator.find("Makefiles") != std::string::npos) {
    // CMakeFiles/<Name>.dir/link.txt, in the target's binary directory.
    std::string Suffix = ("/CMakeFiles/" + Name + ".dir").str();
    std::string TargetDir;
    std::error_code EC;
    for (fs::recursive_directory_iterator It(Build, EC), End; It != End && !EC; It.increment(EC))
      if (It->type() == fs::file_type::directory_file && llvm::StringRef(It->path()).ends_with(Suffix)) {
        TargetDir = It->path();
        break;
      }
    if (TargetDir.empty())
      return fail(Error, TargetError::NoSuchTarget,
                  "no target '" + Name + "' in the build directory '" + Build + "'");
    auto LinkTxt = llvm::MemoryBuffer::getFile(TargetDir + "/link.txt");
    if (!LinkTxt)
      return fail(Error, TargetError::NotExecutable,
                  "target '" + Name + "' links no program (it has no link step)");
    llvm::SmallVector<llvm::StringRef, 4> Lines;
    (*LinkTxt)->getBuffer().split(Lines, '\n', -1, false);
    Line = Lines.empty() ? "" : Lines.front().str();
    Out.LinkDirectory = path::parent_path(path::parent_path(TargetDir)).str();
  } else {
    return fail(Error, TargetError::BuildSystem,
                "--target supports CMake's Ninja and Makefile generators, not '" + Out.Generator + "'");
  }

  if (isLibraryStep(Line))
    return fail(Error, TargetError::NotExecutable,
                "target '" + Name + "' is a library, not a program: name an executable target");
  Out.Link = linkStep(Line);
  if (Out.Link.empty())
    return fail(Error, TargetError::NotExecutable,
                "target '" + Name + "' links no program (it has no link step)");

  std::map<std::string, const CompileCommand *> ByObject;
  for (const CompileCommand &C : Db.Commands) {
    std::string Obj = objectOf(C);
    if (!Obj.empty())
      ByObject.emplace(Obj, &C);
  }
  for (size_t I = 1; I < Out.Link.size(); ++I) {
    if (Out.Link[I - 1] == "-o" || !isObject(Out.Link[I]))
      continue;
    auto It = ByObject.find(absoluteIn(Out.LinkDirectory, Out.Link[I]));
    if (It != ByObject.end())
      Out.Units.push_back({*It->second, It->first});
  }
  if (Out.Units.empty())
    return fail(Error, TargetError::BuildSystem,
                "target '" + Name + "' links no object that " + Db.Path + " compiles");
  return true;
}

std::vector<std::string> relinkCommand(const Target &T,
                                       const std::map<std::string, std::string> &Swaps,
                                       llvm::StringRef Output, llvm::ArrayRef<std::string> Extra) {
  std::vector<std::string> Args;
  for (size_t I = 0; I < T.Link.size(); ++I) {
    const std::string &A = T.Link[I];
    if (I > 0 && T.Link[I - 1] == "-o") {
      Args.push_back(Output.str());
      continue;
    }
    if (I > 0 && isObject(A)) {
      auto It = Swaps.find(absoluteIn(T.LinkDirectory, A));
      if (It != Swaps.end()) {
        Args.push_back(It->second);
        continue;
      }
    }
    Args.push_back(A);
  }
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  return Args;
}

std::vector<std::string> recompileCommand(const TargetUnit &U, llvm::StringRef Source,
                                          llvm::StringRef Object,
                                          llvm::ArrayRef<std::string> Extra) {
  // The project's own outputs are never written: no object, no depfile.
  std::vector<std::string> Args = {U.Command.Arguments.front()};
  for (std::string &F : compileFlags(U.Command))
    Args.push_back(std::move(F));
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  Args.insert(Args.end(), {"-c", Source.str(), "-o", Object.str()});
  return Args;
}

} // namespace libtorch_tidy::verify
