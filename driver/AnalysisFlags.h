//===--- AnalysisFlags.h - The command-line options every analysis takes --===//
//
// The default command and `review` run the same analysis (Analysis.h): they
// share its options, declared once here, and the parsing of the command line
// (errors as one line, `--diff REV` with a space).
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_ANALYSISFLAGS_H
#define LIBTORCH_TIDY_DRIVER_ANALYSISFLAGS_H

#include "Analysis.h"
#include "llvm/Support/CommandLine.h"
#include <optional>
#include <string>

namespace libtorch_tidy {

/// The category of the driver's options (--help shows only these).
llvm::cl::OptionCategory &driverCategory();

/// Constructed inside a subcommand's run function (its options exist only
/// while it runs).
struct AnalysisFlags {
  llvm::cl::list<std::string> BuildDirs{
      "p", llvm::cl::desc("Build directory holding compile_commands.json, or the file itself (default: ., "
                          "./build or a parent directory); repeatable: one analysis over the union of "
                          "several builds (a repository with one build per sub-project)"),
      llvm::cl::value_desc("dir"), llvm::cl::cat(driverCategory())};
  llvm::cl::list<std::string> Paths{llvm::cl::Positional, llvm::cl::desc("[PATH...]"),
                                    llvm::cl::cat(driverCategory())};
  llvm::cl::opt<unsigned> Jobs{"j", llvm::cl::desc("Parallel clang-tidy processes (default: all cores)"),
                               llvm::cl::value_desc("N"), llvm::cl::init(0), llvm::cl::Prefix,
                               llvm::cl::cat(driverCategory())};
  llvm::cl::opt<bool> All{"all",
                          llvm::cl::desc("Analyse every translation unit, also those that include no "
                                         "LibTorch header"),
                          llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> Checks{"checks",
                                    llvm::cl::desc("Checks for clang-tidy (default: the .clang-tidy's, else "
                                                   "'-*,torch-*')"),
                                    llvm::cl::value_desc("globs"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> HeaderFilter{"header-filter",
                                          llvm::cl::desc("Report findings in headers matching this regex "
                                                         "(default: the .clang-tidy's HeaderFilterRegex)"),
                                          llvm::cl::value_desc("regex"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> ConfigFile{"config-file",
                                        llvm::cl::desc("A .clang-tidy file to use instead of the project's"),
                                        llvm::cl::value_desc("file"), llvm::cl::cat(driverCategory())};
  llvm::cl::list<std::string> ExtraArgs{"extra-arg", llvm::cl::desc("Extra compiler argument (repeatable)"),
                                        llvm::cl::value_desc("arg"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> Diff{"diff", llvm::cl::ValueOptional,
                                  llvm::cl::desc("Report the findings of the change since REV: those on "
                                                 "changed lines and those new since REV in the translation "
                                                 "units it touches (default REV: the merge base with the "
                                                 "upstream branch, or HEAD)"),
                                  llvm::cl::value_desc("REV"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> ClangTidy{"clang-tidy",
                                       llvm::cl::desc("clang-tidy to run (default: $LIBTORCH_TIDY_CLANG_TIDY, "
                                                      "else the one of the plugin's LLVM version)"),
                                       llvm::cl::value_desc("path"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> Plugin{"plugin",
                                    llvm::cl::desc("LibTorchTidy.so to load (default: $LIBTORCH_TIDY_PLUGIN, "
                                                   "else ../lib/LibTorchTidy.so beside the command)"),
                                    llvm::cl::value_desc("path"), llvm::cl::cat(driverCategory())};
  llvm::cl::list<std::string> Load{"load",
                                   llvm::cl::desc("Also load this clang-tidy module into clang-tidy (repeatable): "
                                                  "your own checks beside the torch- ones, enabled by the "
                                                  "configuration or --checks"),
                                   llvm::cl::value_desc("module.so"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<bool> Quiet{"quiet", llvm::cl::desc("No progress line and no summary"),
                            llvm::cl::cat(driverCategory())};
  llvm::cl::opt<bool> NoPch{"no-pch",
                            llvm::cl::desc("Parse every translation unit in full (no precompiled LibTorch "
                                           "header)"),
                            llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> PchFile{
      "pch-file",
      llvm::cl::desc("A precompiled <torch/torch.h> built by the caller with the units' flags (the Bazel "
                     "aspect builds one per configuration): used instead of building one, for the units "
                     "whose first #include, followed through quoted headers, is a LibTorch one"),
      llvm::cl::value_desc("path"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<unsigned> Timeout{"timeout",
                                  llvm::cl::desc("Seconds one translation unit's analysis may take; past them "
                                                 "it is stopped and reported as not analysed (default: 0, no "
                                                 "limit)"),
                                  llvm::cl::value_desc("seconds"), llvm::cl::init(0),
                                  llvm::cl::cat(driverCategory())};
  llvm::cl::opt<bool> NoCache{"no-cache", llvm::cl::desc("Neither read nor write the results cache"),
                              llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> CacheDir{"cache-dir",
                                      llvm::cl::desc("Cache of results and precompiled headers (default: "
                                                     "BUILD/.libtorch-tidy-cache, or $LIBTORCH_TIDY_CACHE_DIR)"),
                                      llvm::cl::value_desc("dir"), llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> CacheSize{"cache-size",
                                       llvm::cl::desc("Size cap of the cache directory, e.g. 500M, 4G "
                                                      "(default: 2G)"),
                                       llvm::cl::value_desc("size"), llvm::cl::init("2G"),
                                       llvm::cl::cat(driverCategory())};
  llvm::cl::opt<std::string> Shard{"shard",
                                   llvm::cl::desc("Analyse only part I of N (1-based; default: "
                                                  "$CI_NODE_INDEX/$CI_NODE_TOTAL when set)"),
                                   llvm::cl::value_desc("I/N"), llvm::cl::cat(driverCategory())};

  /// The analysis these options ask for, run from \p Cwd, with the plugin and
  /// the clang-tidy to load it found (--plugin, --clang-tidy, else their
  /// defaults); an error when either is missing.
  llvm::Expected<AnalysisOptions> options(const std::string &Cwd) const;
};

/// --cross-tu, for the commands that report findings (the default command,
/// review): they run analyseProject with it.
struct CrossUnitFlag {
  llvm::cl::opt<bool> CrossTU{"cross-tu",
                              llvm::cl::desc("Link the summaries of every translation unit of the compile "
                                             "database, so that findings may depend on functions defined in "
                                             "other files; the units that depend on others are analysed "
                                             "again with them (docs/cross-function.md)"),
                              llvm::cl::cat(driverCategory())};
};

/// Parses the command line (Argv[0] the program); a usage error as one line.
std::optional<std::string> parseDriverCommandLine(int Argc, const char **Argv, const char *Overview);

/// The current directory.
std::string currentDir();

/// Absolute, without dots.
std::string makeAbsolute(llvm::StringRef Path);

/// Prints "libtorch-tidy: error: Message" and returns ExitError.
int fail(const llvm::Twine &Message);
int fail(llvm::Error E);

} // namespace libtorch_tidy

#endif
