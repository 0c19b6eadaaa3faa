// Fuzz target: the checks themselves. The input is a C++ source file; every
// torch- check runs on it through clang-tidy's own library (runClangTidy, the
// function clang-tidy's main calls, with the module found through its
// ClangTidyModuleRegistry entry as when the plugin is loaded), against the
// mock LibTorch headers of test/checks/Inputs. The input is user code:
// -std=c++17, or -std=c++20 when its first line says `c++20`. Compile errors
// are fine (the checks run on the partial AST, as clang-tidy does); a crash, a
// sanitizer report, a hang or a fix-it outside the file fails.
//
// The mock headers (<torch/torch.h>, <torch/script.h> and the standard headers
// they include) are parsed once per standard at start-up into a precompiled
// header in the fuzzer's work directory, and forced in before each input
// (-include-pch; an input that includes them again gets nothing new): parsing
// them as text takes most of a run. FUZZ_CHECKS_PCH=0 parses them as text on
// every run instead (-include), as the lit tests do. FUZZ_CHECKS_VERBOSE=1
// prints each run's diagnostics (offset, message, name).
//
// Mutations: CxxMutator.h (lines and brace-balanced ranges: delete, duplicate,
// move, wrap, insert idioms, rename, templatize, toggle the standard; splice
// with another input), libFuzzer's byte mutations two times in ten.
#include "CxxMutator.h"
#include "FuzzUtil.h"

#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t MaxSize);

namespace {
using namespace clang;

const char *const MockHeaders = LIBTORCH_TIDY_MOCK_HEADERS;
const char *const ResourceDir = LIBTORCH_TIDY_CLANG_RESOURCE_DIR;
const char *const InputFile = "/libtorch-tidy-fuzz/input.cpp";

/// The compile arguments of a run, without the compiler and the file.
std::vector<std::string> compileArgs(bool Cxx20) {
  return {Cxx20 ? "-std=c++20" : "-std=c++17", "-isystem", MockHeaders, "-resource-dir", ResourceDir};
}

/// Precompiles the mock LibTorch headers for one standard; "" when it fails.
std::string buildPch(bool Cxx20) {
  // Written once: a PCH records the header's modification time.
  static const std::string HeaderPath = [] {
    static const char Header[] = "#include <torch/torch.h>\n#include <torch/script.h>\n";
    return libtorch_tidy::fuzz::writeInput("mock-torch.h", reinterpret_cast<const uint8_t *>(Header),
                                           sizeof(Header) - 1);
  }();
  std::string Out = libtorch_tidy::fuzz::workDir() + (Cxx20 ? "/mock-torch-20.pch" : "/mock-torch-17.pch");
  std::vector<std::string> Args = {"clang++", "-x", "c++-header"};
  for (std::string &A : compileArgs(Cxx20))
    Args.push_back(std::move(A));
  Args.push_back(HeaderPath);
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  CreateInvocationOptions Opts;
  Opts.Diags = CompilerInstance::createDiagnostics(new DiagnosticOptions());
  std::shared_ptr<CompilerInvocation> Inv = createInvocation(Argv, Opts);
  if (!Inv)
    return "";
  Inv->getFrontendOpts().ProgramAction = frontend::GeneratePCH;
  Inv->getFrontendOpts().OutputFile = Out;
  // As runClangTidy sets it for the inputs: a PCH must agree with them.
  Inv->getPreprocessorOpts().SetUpStaticAnalyzer = true;
  CompilerInstance CI;
  CI.setInvocation(std::move(Inv));
  CI.createDiagnostics();
  GeneratePCHAction Action;
  if (!CI.ExecuteAction(Action) || CI.getDiagnostics().hasErrorOccurred())
    return "";
  return Out;
}

std::string Pch[2]; // c++17, c++20; empty: the headers are parsed as text
bool Verbose = false; // FUZZ_CHECKS_VERBOSE=1: print the diagnostics of each run

/// Runs every torch- check on the source, as clang-tidy does; its diagnostics.
std::vector<tidy::ClangTidyError> runChecks(const char *Data, size_t Size) {
  llvm::StringRef Code(Data, Size);
  bool Cxx20 = Code.substr(0, Code.find('\n')).contains("c++20");

  std::vector<std::string> Args = compileArgs(Cxx20);
  if (!Pch[Cxx20].empty())
    Args.insert(Args.end(), {"-include-pch", Pch[Cxx20]});
  else
    Args.insert(Args.end(), {"-include", "torch/torch.h", "-include", "torch/script.h"});
  tooling::FixedCompilationDatabase Db("/", Args);

  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Memory->addFile(InputFile, 0, llvm::MemoryBuffer::getMemBufferCopy(Code, InputFile));
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  FS->pushOverlay(Memory);

  tidy::ClangTidyOptions Options = tidy::ClangTidyOptions::getDefaults();
  Options.Checks = "-*,torch-*";
  tidy::ClangTidyContext Context(
      std::make_unique<tidy::DefaultOptionsProvider>(tidy::ClangTidyGlobalOptions(), Options));
  return tidy::runClangTidy(Context, Db, {InputFile}, FS, /*ApplyAnyFix=*/true);
}

/// Every replacement of the checks' fix-its in the input must lie inside it.
void checkFixes(const std::vector<tidy::ClangTidyError> &Errors, size_t Size) {
  auto Check = [&](const tooling::DiagnosticMessage &M) {
    for (const auto &[File, Replacements] : M.Fix) {
      if (File != InputFile)
        continue;
      for (const tooling::Replacement &R : Replacements)
        if (R.getOffset() > Size || R.getLength() > Size - R.getOffset()) {
          std::fprintf(stderr, "fuzz-checks: fix-it of %s outside the input: offset %u length %u size %zu\n",
                       M.Message.c_str(), R.getOffset(), R.getLength(), Size);
          std::abort();
        }
    }
  };
  for (const tidy::ClangTidyError &E : Errors) {
    Check(E.Message);
    for (const tooling::DiagnosticMessage &N : E.Notes)
      Check(N);
  }
}

} // namespace

// Leaks of Clang itself, not of the checks, each found by this target and
// named here. ASan records the stack of an allocation with the fast unwinder,
// which stops at the first frame of libLLVM or libclang-cpp (no frame
// pointers): a suppression can only name the frames above it, and the slow
// unwinder makes every run several times slower.
// - Sema keeps the diagnostic storage (a SmallVector<unsigned>) of a failed
//   template deduction it recovers from, in
//   MakeDeductionFailureInfo (a C++20 structured binding of an incomplete
//   class template instantiation); the recorded stack is malloc and
//   SmallVectorBase<unsigned>::grow_pod alone. A leak of the checks leaks the
//   object owning such a vector too, reported with the checks' frames.
extern "C" const char *__lsan_default_suppressions() {
  return "leak:llvm::SmallVectorBase<unsigned int>::grow_pod\n";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *V = std::getenv("FUZZ_CHECKS_VERBOSE");
  Verbose = V && std::strcmp(V, "1") == 0;
  const char *UsePch = std::getenv("FUZZ_CHECKS_PCH");
  if (UsePch && std::strcmp(UsePch, "0") == 0)
    return 0;
  for (int Cxx20 = 0; Cxx20 < 2; ++Cxx20) {
    Pch[Cxx20] = buildPch(Cxx20);
    if (Pch[Cxx20].empty()) {
      std::fprintf(stderr, "fuzz-checks: cannot precompile the mock headers of %s\n", MockHeaders);
      std::abort();
    }
  }
  // The PCHs must be accepted, or every run would stop at a compile error.
  static const char Probe[] = "// c++20\nvoid probe(torch::Tensor t) { t.backward(); }\n";
  for (int Cxx20 = 0; Cxx20 < 2; ++Cxx20) {
    const char *Code = Cxx20 ? Probe : Probe + std::strlen("// c++20\n");
    for (const tidy::ClangTidyError &E : runChecks(Code, std::strlen(Code)))
      if (E.DiagLevel == tooling::Diagnostic::Error) {
        std::fprintf(stderr, "fuzz-checks: the probe input does not compile: %s\n",
                     E.Message.Message.c_str());
        std::abort();
      }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<tidy::ClangTidyError> Errors = runChecks(reinterpret_cast<const char *>(Data), Size);
  checkFixes(Errors, Size);
  if (Verbose)
    for (const tidy::ClangTidyError &E : Errors)
      std::fprintf(stderr, "%u: %s [%s]\n", E.Message.FileOffset, E.Message.Message.c_str(),
                   E.DiagnosticName.c_str());
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *Data, size_t Size, size_t MaxSize, unsigned Seed) {
  libtorch_tidy::fuzz::CxxMutator M(Seed);
  if (M.pick(10) >= 2) {
    std::string Text(reinterpret_cast<const char *>(Data), Size);
    // One to three structural steps: a wrapped and then renamed range reaches
    // shapes no single step does.
    bool Changed = false;
    for (size_t Steps = 1 + M.pick(3); Steps; --Steps)
      Changed |= M.mutate(Text);
    if (Changed && Text.size() <= MaxSize) {
      std::memcpy(Data, Text.data(), Text.size());
      return Text.size();
    }
  }
  return LLVMFuzzerMutate(Data, Size, MaxSize);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t *Data1, size_t Size1, const uint8_t *Data2,
                                            size_t Size2, uint8_t *Out, size_t MaxOutSize,
                                            unsigned Seed) {
  libtorch_tidy::fuzz::CxxMutator M(Seed);
  std::string Text(reinterpret_cast<const char *>(Data1), Size1);
  M.splice(Text, std::string_view(reinterpret_cast<const char *>(Data2), Size2));
  size_t N = std::min(Text.size(), MaxOutSize);
  std::memcpy(Out, Text.data(), N);
  return N;
}
