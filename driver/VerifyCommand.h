//===--- VerifyCommand.h - libtorch-tidy verify ---------------*- C++ -*-===//
//
//   libtorch-tidy verify FILE [-p BUILD_DIR] [--iterations N] [--device cpu|cuda]
//                             [--json OUT] [--plot OUT.svg]
//
// See driver/verify/Verify.h and docs/verify.md.
//
//===----------------------------------------------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_VERIFYCOMMAND_H
#define LIBTORCH_TIDY_DRIVER_VERIFYCOMMAND_H

namespace libtorch_tidy {
/// Argv[0] is "verify".
int runVerifyCommand(int Argc, const char **Argv);
/// Unregisters verify's LLVM subcommand (before another command parses).
void hideVerifySubcommand();
} // namespace libtorch_tidy

#endif
