//===--- AnalyzeCommand.h - `libtorch-tidy [options] [PATH...]` -----------===//
#ifndef LIBTORCH_TIDY_DRIVER_ANALYZECOMMAND_H
#define LIBTORCH_TIDY_DRIVER_ANALYZECOMMAND_H

#include <string>
#include <vector>

namespace libtorch_tidy {

/// Exit codes of every subcommand.
enum ExitCode {
  ExitClean = 0,
  ExitFindings = 1,
  ExitError = 2,
  ExitApi = 3, // review: the platform API refused the request or could not be reached
  // Every unit was analysed, but a check crashed on some: the other checks'
  // findings are reported, that check's there are missing (CrashIsolation.h).
  ExitCheckCrashed = 4,
  // Findings were reported and some units could not be analysed (they may
  // hold more): both at once, so that neither hides the other.
  ExitFindingsIncomplete = 5,
};

/// The exit status of an analysis from what it found and what it could not
/// do: units not analysed first (with findings: both at once), then a crashed
/// check, then findings or none.
ExitCode analysisExit(bool NotAnalysed, bool Crashed, bool Findings);

/// The default command: analyse a project. argv[0] is the program name.
int runAnalyzeCommand(int Argc, const char **Argv);

/// A subcommand's name and its one line in every --help (Subcommands.cpp).
struct SubcommandInfo {
  const char *Name;
  const char *Summary;
};
const std::vector<SubcommandInfo> &subcommandInfos();

/// Every subcommand with one line each, ending every command's --help.
const std::string &subcommandsHelp();

} // namespace libtorch_tidy

#endif
