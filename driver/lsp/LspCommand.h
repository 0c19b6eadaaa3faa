//===--- LspCommand.h - libtorch-tidy lsp ---------------------------------===//
#ifndef LIBTORCH_TIDY_DRIVER_LSP_LSPCOMMAND_H
#define LIBTORCH_TIDY_DRIVER_LSP_LSPCOMMAND_H

namespace libtorch_tidy {

/// `libtorch-tidy lsp [options]`: a language server over stdin/stdout.
/// Argv[0] is "libtorch-tidy lsp".
int runLspCommand(int Argc, const char **Argv);

} // namespace libtorch_tidy

#endif
