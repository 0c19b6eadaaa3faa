# lit suite: libtorch-tidy-clangd (clangd with the torch- checks) over LSP, on
# a small project with the mock LibTorch headers.
import os
import shutil
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
# Headless Neovim (test/clangd/neovim.test), named by its full path: the
# test runs it with a PATH of its own; %path is the suite's PATH, to extend.
# $LIBTORCH_TIDY_NVIM names another Neovim than the one on PATH.
nvim = os.environ.get("LIBTORCH_TIDY_NVIM") or shutil.which("nvim")
if nvim:
    config.substitutions.append(("%nvim", nvim))
    config.available_features.add("nvim")
config.substitutions.append(("%path", config.environment["PATH"]))
