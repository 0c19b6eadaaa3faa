//===--- Prefilter.cpp ----------------------------------------------------===//
#include "Prefilter.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace libtorch_tidy {

bool isLibTorchInclude(llvm::StringRef Name) {
  for (llvm::StringRef Prefix : {"torch/", "ATen/", "c10/", "caffe2/"})
    if (Name.starts_with(Prefix))
      return true;
  return false;
}

const std::vector<IncludeScanner::Directive> &IncludeScanner::directives(const std::string &File) {
  auto It = Cache.find(File);
  if (It != Cache.end())
    return It->second;
  std::vector<Directive> Result;
  if (auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
    llvm::StringRef Text = (*Buf)->getBuffer();
    // A UTF-8 byte-order mark before the first line, as the compiler skips it.
    Text.consume_front("\xEF\xBB\xBF");
    while (!Text.empty()) {
      llvm::StringRef Line;
      std::tie(Line, Text) = Text.split('\n');
      Line = Line.ltrim(" \t");
      if (!Line.consume_front("#"))
        continue;
      Line = Line.ltrim(" \t");
      if (!(Line.consume_front("include_next") || Line.consume_front("include") ||
            Line.consume_front("import")))
        continue;
      Line = Line.ltrim(" \t");
      Directive D;
      if (Line.consume_front("<")) {
        D.Name = Line.take_until([](char C) { return C == '>'; }).str();
        D.Angled = true;
      } else if (Line.consume_front("\"")) {
        D.Name = Line.take_until([](char C) { return C == '"'; }).str();
      } else {
        D.Macro = !Line.trim().empty();
      }
      if (!D.Name.empty() || D.Macro)
        Result.push_back(std::move(D));
    }
  }
  return Cache[File] = std::move(Result);
}

IncludeScan IncludeScanner::scan(const CompileCommand &Command) {
  // The project's include directories and the forced includes.
  std::vector<std::string> Quote, Angled, Forced;
  auto Abs = [&](llvm::StringRef P) {
    llvm::SmallString<256> S(P);
    if (!llvm::sys::path::is_absolute(S)) {
      S = Command.Directory;
      llvm::sys::path::append(S, P);
    }
    llvm::sys::path::remove_dots(S, true);
    return std::string(S);
  };
  const auto &Args = Command.Arguments;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A = Args[I];
    auto Value = [&](llvm::StringRef Flag, std::vector<std::string> &Into) {
      if (A == Flag && I + 1 < Args.size()) {
        Into.push_back(Abs(Args[++I]));
        return true;
      }
      if (A.starts_with(Flag) && A.size() > Flag.size()) {
        Into.push_back(Abs(A.drop_front(Flag.size()).ltrim('=')));
        return true;
      }
      return false;
    };
    if (Value("-iquote", Quote) || Value("--include-directory", Angled) || Value("-I", Angled))
      continue;
    if (A == "-include" && I + 1 < Args.size())
      Forced.push_back(Args[++I]);
  }

  IncludeScan Result;
  llvm::StringSet<> Visited;
  std::vector<std::string> Stack = {Command.File};
  auto Resolve = [&](const std::string &Includer, const Directive &D) -> std::string {
    auto Try = [](llvm::StringRef Dir, llvm::StringRef Name) -> std::string {
      llvm::SmallString<256> P(Dir);
      llvm::sys::path::append(P, Name);
      llvm::sys::path::remove_dots(P, true);
      return llvm::sys::fs::is_regular_file(P) ? std::string(P) : std::string();
    };
    if (llvm::sys::path::is_absolute(D.Name))
      return llvm::sys::fs::is_regular_file(D.Name) ? D.Name : std::string();
    if (!D.Angled) {
      if (auto P = Try(llvm::sys::path::parent_path(Includer), D.Name); !P.empty())
        return P;
      for (const auto &Dir : Quote)
        if (auto P = Try(Dir, D.Name); !P.empty())
          return P;
    }
    for (const auto &Dir : Angled)
      if (auto P = Try(Dir, D.Name); !P.empty())
        return P;
    return {};
  };
  for (const auto &F : Forced) {
    Directive D;
    D.Name = F;
    if (isLibTorchInclude(F)) {
      Result.UsesLibTorch = true;
      Result.Evidence = "-include " + F;
    } else if (auto P = Resolve(Command.File, D); !P.empty()) {
      Stack.push_back(P);
    }
  }
  while (!Stack.empty()) {
    std::string File = Stack.back();
    Stack.pop_back();
    if (!Visited.insert(File).second)
      continue;
    Result.ProjectFiles.push_back(File);
    for (const Directive &D : directives(File)) {
      if (D.Macro || isLibTorchInclude(D.Name)) {
        if (!Result.UsesLibTorch) {
          Result.UsesLibTorch = true;
          Result.Evidence = llvm::sys::path::filename(File).str() + " includes " +
                            (D.Macro ? std::string("a header named by a macro")
                                     : (D.Angled ? "<" + D.Name + ">" : "\"" + D.Name + "\""));
        }
        continue;
      }
      std::string P = Resolve(File, D);
      if (!P.empty() && !Visited.contains(P))
        Stack.push_back(P);
    }
  }
  return Result;
}

} // namespace libtorch_tidy
