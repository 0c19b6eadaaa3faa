//===--- Subcommands.cpp - the subcommands every --help lists -------------===//
//
// The name and the one line of every subcommand, in the order --help shows
// them. It lives in the driver's library (not in Main.cpp) because every
// command's --help prints it and the library's other users (the fuzz targets,
// the tests) link the commands without Main.cpp. Main.cpp's table pairs each
// name with its run function and checks that the two lists agree.
//
//===----------------------------------------------------------------------===//
#include "AnalyzeCommand.h"

namespace libtorch_tidy {

const std::vector<SubcommandInfo> &subcommandInfos() {
  static const std::vector<SubcommandInfo> Table = {
      {"review", "the findings of a pull request's change as a GitHub or GitLab review"},
      {"lsp", "a language server (stdio) publishing the findings to editors"},
      {"tidy", "clang-tidy on one source inside a build, with the shared precompiled LibTorch header"},
      {"merge", "one report from the reports of the shards (--shard)"},
      {"summarize", "the linked function summaries of a project, for the analysis across translation units"},
      {"verify", "prove a fix-it at run time: fix a copy of a program, run both, compare memory per iteration"},
  };
  return Table;
}

const std::string &subcommandsHelp() {
  static const std::string Text = [] {
    std::string Out = "\nSUBCOMMANDS (libtorch-tidy <subcommand> --help for each):\n\n"
                      "  (none)      analyse a project: libtorch-tidy [options] [PATH...]\n";
    for (const SubcommandInfo &S : subcommandInfos()) {
      std::string Name(S.Name);
      Out += "  " + Name + std::string(Name.size() < 12 ? 12 - Name.size() : 1, ' ') + S.Summary + "\n";
    }
    return Out;
  }();
  return Text;
}

} // namespace libtorch_tidy
