#!/usr/bin/env bash
# Sets up, builds and runs every test: the checks' lit suite, the driver's
# lit suite, the runtime's GoogleTest and the end-to-end tests that compile and
# run real LibTorch programs.
set -euo pipefail
cd "$(dirname "$0")/.."
export LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS=${LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS-22}
bash scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"${CTEST_JOBS:-1}"
# The other clang-tidy versions: the checks' and the driver's lit suites and
# the package; the end-to-end LibTorch tests ran once above (label e2e).
for v in $LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS; do
  ctest --test-dir "build-$v" --output-on-failure -j"${CTEST_JOBS:-1}" -LE e2e
done
# The runtime companion against LibTorch 2.x from the PyPI torch wheel (about
# 2-3 minutes on 2 cores once the 540 MB wheel is cached in .whl/; see
# docs/runtime.md). LIBTORCH_TIDY_SKIP_TORCH2=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_TORCH2:-0}" != 1 ]; then
  bash scripts/test-torch2.sh
fi
# The runtime's memory snapshots in PyTorch's memory_viz reader (PyPI torch on
# CPU; about 30 s once its virtual environment exists, see docs/runtime.md).
# LIBTORCH_TIDY_SKIP_SNAPSHOT_FORMAT=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_SNAPSHOT_FORMAT:-0}" != 1 ]; then
  bash scripts/test-snapshot-format.sh
fi
