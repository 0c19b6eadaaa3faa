#!/usr/bin/env bash
# Sets up, builds and runs every test: the checks' lit suite, the driver's
# lit suite, the runtime's GoogleTest and the end-to-end tests that compile and
# run real LibTorch programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j"${CTEST_JOBS:-1}"
