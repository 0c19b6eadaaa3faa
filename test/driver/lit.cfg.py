# lit suite: the libtorch-tidy command on small generated projects.
import os
import sys

sys.path.insert(0, os.path.join(config.source_root, "test"))
import lit_common  # noqa: E402

lit_common.configure(config, lit_config, [".test"])
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%llvm_version", config.llvm_version))
# The configured base of report links to the check pages (empty: file:// links).
if getattr(config, "docs_url", ""):
    config.substitutions.append(("%docs_url", config.docs_url))
    config.available_features.add("published-docs-url")
# The other supported clang-tidy major version, for the mismatch error.
config.substitutions.append(("%other_llvm_version", "22" if config.llvm_version == "19" else "19"))
# clang's own omp.h (libomp-N-dev; Debian installs one version at a time).
import glob  # noqa: E402
if glob.glob(os.path.join(config.llvm_tools_dir, "..", "lib", "clang", "*", "include", "omp.h")):
    config.available_features.add("openmp-header")
# A clang-tidy module whose checks crash on purpose (test/CMakeLists.txt).
crash_module = getattr(config, "crash_module", "")
if crash_module and os.path.exists(crash_module):
    config.substitutions.append(("%crash_module", crash_module))
    config.available_features.add("crash-module")
# Headless Neovim (lsp-neovim-snippet.test) and node (vscode-extension.test),
# named by their full paths: the tests run them with a PATH of their own.
# $LIBTORCH_TIDY_NVIM names another Neovim than the one on PATH.
import shutil  # noqa: E402
for tool, found in (("nvim", os.environ.get("LIBTORCH_TIDY_NVIM") or shutil.which("nvim")),
                    ("node", shutil.which("node"))):
    if found:
        config.substitutions.append(("%" + tool, found))
        config.available_features.add(tool)
