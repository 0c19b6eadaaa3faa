//===--- MergeCommand.h - `libtorch-tidy merge` ---------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_MERGECOMMAND_H
#define LIBTORCH_TIDY_DRIVER_MERGECOMMAND_H

namespace libtorch_tidy {

/// Merges the JSON or SARIF reports of shards (--shard) into one report, the
/// one an unsharded run writes. Argv[0] is "libtorch-tidy merge".
int runMergeCommand(int Argc, const char **Argv);

} // namespace libtorch_tidy

#endif
