//===--- SummarizeCommand.h - `libtorch-tidy summarize` -------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_SUMMARIZECOMMAND_H
#define LIBTORCH_TIDY_DRIVER_SUMMARIZECOMMAND_H

namespace libtorch_tidy {

/// Writes the linked function summaries of a compile database (the file the
/// option TorchSummaries names). Argv[0] is "libtorch-tidy summarize".
int runSummarizeCommand(int Argc, const char **Argv);

} // namespace libtorch_tidy

#endif
