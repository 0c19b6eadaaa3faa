//===--- CrashTestModule.cpp - checks that crash clang-tidy on purpose ----===//
//
// A clang-tidy module built for the driver's tests only (test/CMakeLists.txt;
// never installed): its checks crash the way a check's bug does, so that
// test/driver/check-crash.test can show that one crashing check costs no
// file (driver/CrashIsolation.h).
//
//   crashtest-segv   dereferences a null pointer (SIGSEGV) in a function
//                    named crash_here
//   crashtest-abort  aborts (SIGABRT, as a failed assertion does) in a
//                    function named abort_here
//   crashtest-hang   never returns (as a check's endless loop) in a function
//                    named hang_here
//
// Elsewhere they diagnose nothing.
//
//===----------------------------------------------------------------------===//
#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR < 22 // 22 moved the registry into ClangTidyModule.h
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include <chrono>
#include <cstdlib>
#include <thread>

namespace clang::tidy::crashtest {

using namespace ast_matchers;

class SegvCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(functionDecl(hasName("crash_here")).bind("f"), this);
  }
  void check(const MatchFinder::MatchResult &) override {
    volatile int *Null = nullptr;
    *Null = 1; // the crash, as a check's null dereference
  }
};

class AbortCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(functionDecl(hasName("abort_here")).bind("f"), this);
  }
  void check(const MatchFinder::MatchResult &) override { std::abort(); }
};

class HangCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerMatchers(MatchFinder *Finder) override {
    Finder->addMatcher(functionDecl(hasName("hang_here")).bind("f"), this);
  }
  void check(const MatchFinder::MatchResult &) override {
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
};

class CrashTestModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &Factories) override {
    Factories.registerCheck<AbortCheck>("crashtest-abort");
    Factories.registerCheck<HangCheck>("crashtest-hang");
    Factories.registerCheck<SegvCheck>("crashtest-segv");
  }
};

static ClangTidyModuleRegistry::Add<CrashTestModule> X("crashtest-module",
                                                       "Checks that crash on purpose (tests only).");

} // namespace clang::tidy::crashtest
