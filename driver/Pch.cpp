//===--- Pch.cpp ----------------------------------------------------------===//
#include "Pch.h"
#include "AtomicWrite.h"
#include "Prefilter.h"
#include "Toolchain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <cstring>
#include <optional>

namespace libtorch_tidy {

namespace fs = llvm::sys::fs;

bool isStandardLibraryHeader(llvm::StringRef Name) {
  // C++17 (and later) standard library headers, and the C library's as C++
  // and C spell them.
  static const llvm::StringSet<> Headers = {
      "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "charconv", "chrono", "codecvt",
      "compare", "complex", "concepts", "condition_variable", "coroutine", "deque", "exception",
      "execution", "expected", "filesystem", "format", "forward_list", "fstream", "functional", "future",
      "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "latch", "limits",
      "list", "locale", "map", "memory", "memory_resource", "mutex", "new", "numbers", "numeric",
      "optional", "ostream", "queue", "random", "ranges", "ratio", "regex", "scoped_allocator",
      "semaphore", "set", "shared_mutex", "source_location", "span", "sstream", "stack", "stdexcept",
      "stop_token", "streambuf", "string", "string_view", "syncstream", "system_error", "thread", "tuple",
      "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility", "valarray",
      "variant", "vector", "version", "cassert", "cctype", "cerrno", "cfenv", "cfloat", "cinttypes",
      "climits", "clocale", "cmath", "csetjmp", "csignal", "cstdarg", "cstddef", "cstdint", "cstdio",
      "cstdlib", "cstring", "ctime", "cuchar", "cwchar", "cwctype", "assert.h", "ctype.h", "errno.h",
      "fenv.h", "float.h", "inttypes.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h",
      "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h", "uchar.h",
      "wchar.h", "wctype.h"};
  return Headers.contains(Name);
}

namespace {
struct Include {
  std::string Name;
  bool Angled;
};
} // namespace

/// One line of a file without its comments (a block comment becomes a space);
/// \p InComment carries an open block comment from line to line.
static std::string withoutComments(llvm::StringRef Line, bool &InComment) {
  std::string Code;
  for (size_t I = 0; I < Line.size(); ++I) {
    if (InComment) {
      if (Line.substr(I).starts_with("*/")) {
        InComment = false;
        ++I;
        Code += ' ';
      }
      continue;
    }
    if (Line.substr(I).starts_with("//"))
      break;
    if (Line.substr(I).starts_with("/*")) {
      InComment = true;
      ++I;
      continue;
    }
    Code += Line[I];
  }
  return Code;
}

/// The #include lines at the top of a file (comments, blank lines and
/// #pragma once between them allowed), and in Stop what ended them ("code",
/// "#define", ...; empty at the end of the file). With Guard, an include
/// guard (#ifndef X then #define X) before them is allowed too.
static std::vector<Include> leadingIncludes(llvm::StringRef Source, std::string &Stop, bool Guard = false) {
  std::vector<Include> Includes;
  std::string GuardName; // after its #ifndef, until its #define
  bool InComment = false;
  while (!Source.empty() && Stop.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Source) = Source.split('\n');
    Line = Line.rtrim("\r");
    std::string Code = withoutComments(Line, InComment);
    llvm::StringRef C = llvm::StringRef(Code).trim();
    if (C.empty())
      continue;
    if (C.ends_with("\\")) {
      Stop = "a continued line";
      break;
    }
    if (!C.consume_front("#")) {
      Stop = "code";
      break;
    }
    C = C.ltrim();
    if (C.consume_front("pragma") && C.trim() == "once")
      continue;
    if (Guard && Includes.empty() && GuardName.empty() && C.consume_front("ifndef")) {
      GuardName = C.trim().str();
      continue;
    }
    if (!GuardName.empty()) {
      if (C.consume_front("define") && C.trim() == GuardName) {
        GuardName.clear();
        Guard = false;
        continue;
      }
      Stop = "#ifndef";
      break;
    }
    if (!C.consume_front("include")) {
      Stop = "#" + C.take_while([](char Ch) { return llvm::isAlnum(Ch) || Ch == '_'; }).str();
      break;
    }
    C = C.ltrim();
    char Close = C.starts_with("<") ? '>' : C.starts_with("\"") ? '"' : 0;
    size_t End = Close ? C.find(Close, 1) : llvm::StringRef::npos;
    if (!Close || End == llvm::StringRef::npos || !C.drop_front(End + 1).trim().empty()) {
      Stop = "an #include through a macro";
      break;
    }
    Includes.push_back({C.slice(1, End).str(), Close == '>'});
  }
  return Includes;
}

std::string pchPrefix(llvm::StringRef Source, std::string &WhyNot) {
  std::string Stop;
  std::vector<Include> Includes = leadingIncludes(Source, Stop);
  // Up to the last LibTorch include before the first quoted one.
  size_t Last = Includes.size();
  for (size_t I = 0; I < Includes.size() && Includes[I].Angled; ++I)
    if (isLibTorchInclude(Includes[I].Name))
      Last = I;
  if (Last == Includes.size()) {
    bool Quoted = false;
    for (const Include &I : Includes)
      Quoted |= !I.Angled;
    WhyNot = Quoted ? "a quoted #include before the LibTorch ones"
             : Stop.empty() || Stop == "code" ? "no LibTorch #include at the top of the file"
                                               : Stop + " before the first LibTorch #include";
    return {};
  }
  // Standard library headers before the LibTorch ones are left out of the
  // header: they define nothing LibTorch's headers depend on (LibTorch includes
  // what it needs of them itself), so files that list different ones still
  // share one precompiled header. Any other angled header (a third-party
  // library's, which might define macros LibTorch reads) keeps the whole list.
  bool OnlyStandard = true;
  for (size_t I = 0; I <= Last; ++I)
    OnlyStandard &= isLibTorchInclude(Includes[I].Name) || isStandardLibraryHeader(Includes[I].Name);
  std::string Prefix;
  llvm::StringSet<> Seen;
  for (size_t I = 0; I <= Last; ++I) {
    if (OnlyStandard && !isLibTorchInclude(Includes[I].Name))
      continue;
    if (Seen.insert(Includes[I].Name).second)
      Prefix += "#include <" + Includes[I].Name + ">\n";
  }
  return Prefix;
}

static std::string absoluteIn(llvm::StringRef Path, llvm::StringRef Dir) {
  llvm::SmallString<256> P(Path);
  if (!llvm::sys::path::is_absolute(P)) {
    P = Dir;
    llvm::sys::path::append(P, Path);
  }
  llvm::sys::path::remove_dots(P, true);
  return std::string(P);
}

/// The directories a quoted #include is searched in after the including
/// file's own: -iquote, -I, then -isystem and -idirafter, in command order.
static std::vector<std::string> quotedSearchPath(const CompileCommand &Command) {
  std::vector<std::string> Quote, Angled, System;
  const std::vector<std::string> &A = Command.Arguments;
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    const std::pair<llvm::StringRef, std::vector<std::string> *> Options[] = {
        {"-iquote", &Quote}, {"-isystem", &System}, {"-idirafter", &System}, {"-I", &Angled}};
    for (const auto &[Option, Out] : Options) {
      if (!Arg.starts_with(Option))
        continue;
      llvm::StringRef Value = Arg.drop_front(Option.size());
      if (Value.empty() && I + 1 < A.size())
        Value = A[++I];
      if (!Value.empty())
        Out->push_back(absoluteIn(Value, Command.Directory));
      break;
    }
  }
  Quote.insert(Quote.end(), Angled.begin(), Angled.end());
  Quote.insert(Quote.end(), System.begin(), System.end());
  return Quote;
}

bool startsWithLibTorch(const CompileCommand &Command, std::string &WhyNot) {
  const std::vector<std::string> Search = quotedSearchPath(Command);
  std::string File = Command.File;
  // Through at most this many quoted headers (each a file's first include).
  for (int Depth = 0; Depth < 8; ++Depth) {
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf) {
      WhyNot = "unreadable";
      return false;
    }
    std::string Stop;
    std::vector<Include> Includes = leadingIncludes((*Buf)->getBuffer(), Stop, /*Guard=*/Depth > 0);
    const Include *First = nullptr;
    for (const Include &I : Includes)
      if (I.Angled && isLibTorchInclude(I.Name)) {
        return true;
      } else if (!I.Angled || !isStandardLibraryHeader(I.Name)) {
        First = &I;
        break;
      }
    if (!First || First->Angled) {
      WhyNot = First                                   ? "<" + First->Name + "> before the first LibTorch #include"
               : Stop.empty() || Stop == "code" ? "no LibTorch #include at the top of the file"
                                                : Stop + " before the first LibTorch #include";
      return false;
    }
    // A quoted header first: what it starts with comes first.
    std::string Found;
    llvm::SmallString<256> Own(llvm::sys::path::parent_path(File));
    llvm::sys::path::append(Own, First->Name);
    if (fs::is_regular_file(Own))
      Found = std::string(Own);
    for (size_t I = 0; I < Search.size() && Found.empty(); ++I) {
      llvm::SmallString<256> P(Search[I]);
      llvm::sys::path::append(P, First->Name);
      if (fs::is_regular_file(P))
        Found = std::string(P);
    }
    if (Found.empty()) {
      WhyNot = "\"" + First->Name + "\" not found before the first LibTorch #include";
      return false;
    }
    File = Found;
  }
  WhyNot = "quoted headers nested too deep before the first LibTorch #include";
  return false;
}

/// Whether a flag names a path relative to the command's directory (an
/// include directory, a sysroot, a toolchain): then the same flags in another
/// directory mean other headers.
static bool namesRelativePath(llvm::ArrayRef<std::string> Flags) {
  static const char *const PathOptions[] = {
      "-I",           "-isystem",     "-iquote",         "-idirafter", "-isysroot",   "--sysroot",
      "-iframework",  "-F",           "-cxx-isystem",    "-iprefix",   "-iwithprefix", "-iwithprefixbefore",
      "-B",           "--gcc-toolchain", "-resource-dir", "-ivfsoverlay", "-stdlib++-isystem"};
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef Flag = Flags[I];
    for (llvm::StringRef Option : PathOptions) {
      if (!Flag.starts_with(Option))
        continue;
      llvm::StringRef Value = Flag.drop_front(Option.size());
      Value.consume_front("=");
      if (Flag == Option && I + 1 < Flags.size())
        Value = Flags[I + 1];
      if (!Value.empty() && !llvm::sys::path::is_absolute(Value))
        return true;
    }
  }
  return false;
}

std::optional<std::string> libTorchForcedInclude(llvm::StringRef Text) {
  std::string Includes;
  bool InComment = false, Any = false;
  while (!Text.empty()) {
    llvm::StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    std::string Code = withoutComments(Line, InComment);
    llvm::StringRef C = llvm::StringRef(Code).trim();
    if (C.empty())
      continue;
    if (!C.consume_front("#"))
      return std::nullopt;
    C = C.ltrim();
    // CMake's cmake_pch.hxx wraps its #include lines in these.
    if (C.consume_front("pragma")) {
      C = C.trim();
      if (C == "once" || C == "system_header" || C == "GCC system_header" || C == "clang system_header")
        continue;
      return std::nullopt;
    }
    if (C == "ifdef __cplusplus" || C.starts_with("endif") || C == "if defined(__cplusplus)")
      continue;
    if (!C.consume_front("include"))
      return std::nullopt;
    C = C.trim();
    if (!C.starts_with("<") || !C.ends_with(">"))
      return std::nullopt;
    llvm::StringRef Name = C.drop_front().drop_back();
    if (!isLibTorchInclude(Name) && !isStandardLibraryHeader(Name))
      return std::nullopt;
    Any |= isLibTorchInclude(Name);
    Includes += "#include <" + Name.str() + ">\n";
  }
  if (!Any)
    return std::nullopt;
  return Includes;
}

PchPlan planPch(const CompileCommand &Command, llvm::ArrayRef<std::string> ExtraArgs,
                llvm::StringRef ClangId) {
  PchPlan Plan;
  Plan.Directory = Command.Directory;
  llvm::StringRef Ext = llvm::sys::path::extension(Command.File);
  if (!llvm::is_contained({".cpp", ".cc", ".cxx", ".c++", ".cp", ".C", ".CPP"}, Ext)) {
    Plan.WhyNot = "not a C++ source file";
    return Plan;
  }
  const std::vector<std::string> &A = Command.Arguments;
  std::string ForcedPrefix; // the includes of forced LibTorch headers
  for (size_t I = 1; I < A.size(); ++I) {
    llvm::StringRef Arg = A[I];
    if (Arg == "-c" || llvm::is_contained({"-MD", "-MMD", "-MP", "-MG", "-M", "-MM"}, Arg))
      continue;
    if (Arg == "-o" || Arg == "-MF" || Arg == "-MT" || Arg == "-MQ") {
      ++I;
      continue;
    }
    if (Arg.starts_with("-o") || Arg.starts_with("-MF") || Arg.starts_with("-MT") ||
        Arg.starts_with("-MQ"))
      continue;
    if (Arg.starts_with("-include") || Arg.starts_with("--include") || Arg.starts_with("-imacros") ||
        Arg.starts_with("--imacros")) {
      // A forced header that only includes LibTorch (CMake's cmake_pch.hxx
      // of target_precompile_headers(<torch/torch.h>), a build's own wrapper
      // header): its includes open the precompiled header, and the flag stays
      // out of the header's build (the analysis still passes it: clang loads
      // the precompiled header first, and the forced header's includes then
      // cost nothing).
      std::string Header;
      size_t Skip = 0;
      if (Arg == "-include" || Arg == "--include") {
        if (I + 1 < A.size())
          Header = A[I + 1];
        Skip = 1;
      } else if (Arg.starts_with("--include=")) {
        Header = Arg.drop_front(strlen("--include=")).str();
      } else if (Arg.starts_with("-include") && !Arg.starts_with("-include-pch") &&
                 !Arg.starts_with("-include-")) {
        Header = Arg.drop_front(strlen("-include")).str();
      }
      std::optional<std::string> Forced;
      if (!Header.empty())
        if (auto Buf = llvm::MemoryBuffer::getFile(absoluteIn(Header, Command.Directory)))
          Forced = libTorchForcedInclude((*Buf)->getBuffer());
      if (!Forced) {
        Plan.WhyNot = "a forced include (" + Arg.str() + ")";
        return Plan;
      }
      ForcedPrefix += *Forced;
      I += Skip;
      continue;
    }
    if (Arg == "-x" || Arg.starts_with("-x") || Arg.starts_with("--language") ||
        Arg.starts_with("-fmodules") || Arg == "--") {
      Plan.WhyNot = "the option " + Arg.str();
      return Plan;
    }
    if (!Arg.starts_with("-") && absoluteIn(Arg, Command.Directory) == Command.File)
      continue;
    Plan.Flags.push_back(Arg.str());
  }
  Plan.Flags.insert(Plan.Flags.end(), ExtraArgs.begin(), ExtraArgs.end());
  auto Buf = llvm::MemoryBuffer::getFile(Command.File);
  if (!Buf) {
    Plan.WhyNot = "unreadable";
    return Plan;
  }
  Plan.Prefix = pchPrefix((*Buf)->getBuffer(), Plan.WhyNot);
  if (!ForcedPrefix.empty()) {
    // The forced headers come first; the file's own leading LibTorch
    // includes (the same ones, most often) follow, once each.
    llvm::StringSet<> Seen;
    std::string Prefix;
    for (llvm::StringRef Text : {llvm::StringRef(ForcedPrefix), llvm::StringRef(Plan.Prefix)}) {
      llvm::SmallVector<llvm::StringRef, 8> Lines;
      Text.split(Lines, '\n', -1, false);
      for (llvm::StringRef L : Lines)
        if (Seen.insert(L).second)
          Prefix += L.str() + "\n";
    }
    Plan.Prefix = std::move(Prefix);
    Plan.WhyNot.clear();
  }
  if (Plan.Prefix.empty())
    return Plan;
  // The directory counts only where a flag names a path relative to it: a
  // database that gives each source directory its own `directory` (with
  // absolute include paths) still shares one header.
  std::vector<std::string> Parts = {"libtorch-tidy-pch-v1", ClangId.str(), Plan.Prefix,
                                    namesRelativePath(Plan.Flags) ? Plan.Directory : std::string()};
  Parts.insert(Parts.end(), Plan.Flags.begin(), Plan.Flags.end());
  Plan.Key = hashParts(Parts);
  Plan.Usable = true;
  return Plan;
}

std::string clangBesideTidy(llvm::StringRef ClangTidy) {
  llvm::SmallString<256> Real;
  if (fs::real_path(ClangTidy, Real))
    return {};
  for (const char *Name : {"clang++", "clang"}) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(Real));
    llvm::sys::path::append(P, Name);
    if (fs::can_execute(P))
      return std::string(P);
  }
  return {};
}

std::string PchStore::path(const PchPlan &Plan, llvm::StringRef Ext) const {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, "pch", Plan.Key + Ext);
  return std::string(P);
}

bool PchStore::exists(const PchPlan &Plan) const {
  return fs::exists(path(Plan, ".pch")) && fs::exists(path(Plan, ".deps"));
}

/// The files of a make-style dependency file (the target left out).
static std::vector<std::string> parseDepFile(llvm::StringRef Text) {
  std::vector<std::string> Files;
  std::string Current;
  bool SeenTarget = false;
  auto Flush = [&] {
    if (!Current.empty()) {
      if (SeenTarget)
        Files.push_back(Current);
      else if (llvm::StringRef(Current).ends_with(":"))
        SeenTarget = true;
      Current.clear();
    }
  };
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '\\' && I + 1 < Text.size() && (Text[I + 1] == '\n' || Text[I + 1] == '\r')) {
      ++I;
      Flush();
    } else if (C == '\\' && I + 1 < Text.size() && Text[I + 1] == ' ') {
      Current += ' ';
      ++I;
    } else if (C == ' ' || C == '\n' || C == '\t' || C == '\r') {
      Flush();
    } else {
      Current += C;
    }
  }
  Flush();
  return Files;
}

PchStore::Built PchStore::build(const PchPlan &Plan) {
  Built B;
  B.Pch = path(Plan, ".pch");
  std::string Header = path(Plan, ".h"), Deps = path(Plan, ".deps");
  if (fs::exists(B.Pch)) {
    if (auto Buf = llvm::MemoryBuffer::getFile(Deps)) {
      llvm::SmallVector<llvm::StringRef, 0> Lines;
      (*Buf)->getBuffer().split(Lines, '\n', -1, false);
      for (llvm::StringRef L : Lines)
        B.Files.push_back(L.str());
      B.Ok = true;
      touchFile(B.Pch);
      return B;
    }
  }
  B.BuiltNow = true;
  if (auto E = writeFileAtomicallyIn(Header, Plan.Prefix)) {
    B.Error = llvm::toString(std::move(E));
    return B;
  }
  llvm::SmallString<256> Temp, TempDeps;
  fs::createUniquePath(B.Pch + ".tmp-%%%%%%%%", Temp, false);
  TempDeps = Temp;
  TempDeps += ".d";
  std::vector<std::string> Args = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", Plan.Directory, Clang};
  Args.insert(Args.end(), Plan.Flags.begin(), Plan.Flags.end());
  for (const char *A : {"-fpch-instantiate-templates", "-x", "c++-header"})
    Args.push_back(A);
  Args.push_back(Header);
  for (std::string A : {std::string("-o"), std::string(Temp), std::string("-MD"), std::string("-MF"),
                        std::string(TempDeps)})
    Args.push_back(A);
  ProcessResult R = runProcess("/bin/sh", Args);
  auto DepText = llvm::MemoryBuffer::getFile(TempDeps);
  fs::remove(TempDeps);
  if (!R.Error.empty() || R.ExitCode != 0 || !DepText) {
    fs::remove(Temp);
    llvm::StringRef Out = R.Output, First;
    while (!Out.empty() && First.empty()) {
      llvm::StringRef Line;
      std::tie(Line, Out) = Out.split('\n');
      if (Line.contains("error"))
        First = Line.trim();
    }
    B.Error = !R.Error.empty() ? R.Error : First.empty() ? "clang exited with " + std::to_string(R.ExitCode) : First.str();
    return B;
  }
  B.Files = parseDepFile((*DepText)->getBuffer());
  if (auto E = writeFileAtomicallyIn(Deps, llvm::join(B.Files, "\n") + "\n")) {
    fs::remove(Temp);
    B.Error = llvm::toString(std::move(E));
    return B;
  }
  if (auto EC = fs::rename(Temp, B.Pch)) {
    fs::remove(Temp);
    B.Error = "cannot write " + B.Pch + ": " + EC.message();
    return B;
  }
  B.Ok = true;
  return B;
}

PchStore::Built PchStore::get(const PchPlan &Plan) {
  Slot *S;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto &Entry = Slots[Plan.Key];
    if (!Entry)
      Entry = std::make_unique<Slot>();
    S = Entry.get();
  }
  std::call_once(S->Once, [&] { S->Result = build(Plan); });
  Built B = S->Result;
  if (S->Rejected) {
    B.Ok = false;
    B.Error = "rejected by clang-tidy";
  }
  return B;
}

void PchStore::discard(const PchPlan &Plan) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Slots.find(Plan.Key);
    if (It != Slots.end())
      It->second->Rejected = true;
  }
  fs::remove(path(Plan, ".pch"));
  fs::remove(path(Plan, ".deps"));
}

void PchStore::usedFiles(llvm::StringMap<bool> &Out) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const auto &E : Slots)
    for (const char *Ext : {".pch", ".deps", ".h"}) {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, "pch", E.getKey() + Ext);
      Out[P] = true;
    }
}

} // namespace libtorch_tidy
