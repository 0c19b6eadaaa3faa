# lit suite: libtorch-tidy-clangd (clangd with the torch- checks) over LSP, on
# a small project with the mock LibTorch headers.
import os
import sys

sys.path.insert(0, os.path.join(config.source_root, "test"))
import lit_common  # noqa: E402

lit_common.configure(config, lit_config, [".test"])
if config.clangd and os.path.exists(config.clangd):
    config.substitutions.append(("%clangd", config.clangd))
    config.available_features.add("clangd")
if config.stock_clangd and os.path.exists(config.stock_clangd):
    config.substitutions.append(("%stock_clangd", config.stock_clangd))
    config.available_features.add("stock-clangd")
