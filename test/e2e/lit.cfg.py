# lit suite: real LibTorch; fix-its compile, fixed loops stop growing.
import os
import sys

sys.path.insert(0, os.path.join(config.source_root, "test"))
import lit_common  # noqa: E402

lit_common.configure(config, lit_config, [".test"])
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%torch_dir", config.torch_dir))
# Headless Neovim, the real LSP client of the language server's test.
import shutil  # noqa: E402
if shutil.which("nvim"):
    config.available_features.add("nvim")
