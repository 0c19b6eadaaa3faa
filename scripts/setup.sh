#!/usr/bin/env bash
# Installs what libtorch-tidy needs on Debian 12 (as root) and configures and
# builds it in build/. Safe to run again: installs only what is missing.
#   LIBTORCH_TIDY_LLVM_VERSION=19   LLVM/Clang major version
#   BUILD_DIR=build                 build directory
#   LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS="22"   also build the plugin and the
#                                   command for these versions, each in
#                                   build-<N>/ (no runtime, no examples, no
#                                   precompiled LibTorch header of the
#                                   end-to-end tests: those do not depend on
#                                   LLVM and are built once)
# With --demo (scripts/demo.sh): only what the demo needs (the checks, the
# command, the runtime and the examples, LLVM 19 and LibTorch), and a line of
# progress per step instead of the build's every line.
set -euo pipefail
cd "$(dirname "$0")/.."
LLVM_V=${LIBTORCH_TIDY_LLVM_VERSION:-19}
BUILD_DIR=${BUILD_DIR:-build}
EXTRA_V=${LIBTORCH_TIDY_EXTRA_LLVM_VERSIONS:-}

# neovim: the language server's end-to-end test (a real LSP client).
packages=(cmake ninja-build g++ python3 git ccache
          "clang-tidy-$LLVM_V" "libclang-$LLVM_V-dev" "llvm-$LLVM_V-dev" "llvm-$LLVM_V-tools"
          "libomp-$LLVM_V-dev"  # clang's omp.h: projects built with -fopenmp (one version
                                # at a time: Debian's libomp-N-dev packages conflict)
          "clang-$LLVM_V" "libclang-rt-$LLVM_V-dev"  # libFuzzer and the sanitizers (scripts/fuzz.sh, sanitize.sh)
          # libtorch-tidy-clangd (clangd/): clangd's remote index links gRPC and
          # protobuf; stock clangd for its tests and scripts/bench-lsp.py.
          libgrpc++-dev libprotobuf-dev "clangd-$LLVM_V"
          protobuf-compiler-grpc  # gRPC's CMake package (LLVM 22's clangd) needs its grpc_cpp_plugin
          libtorch-dev libgtest-dev libgmock-dev libbenchmark-dev python3-jsonschema python3-yaml
          dpkg-dev fakeroot neovim
          bazel-bootstrap bazel-platforms  # the Bazel aspect's test (test/bazel)
          curl  # `libtorch-tidy review` talks to the GitHub and GitLab APIs through curl
          libgcc-12-dev  # libbacktrace: the runtime's allocation sites (LIBTORCH_TIDY_TRACE=1)
          # The crash sweep's user code (scripts/crash-sweep.sh, docs/crash-sweep.md).
          nlohmann-json3-dev libboost-dev libeigen3-dev libopencv-core-dev libopencv-imgproc-dev
          pybind11-dev python3-dev libfmt-dev libspdlog-dev libcxxopts-dev)
# LLVM 22 comes from bookworm-security (in Debian's default sources).
for v in $EXTRA_V; do
  packages+=("clang-tidy-$v" "libclang-$v-dev" "llvm-$v-dev" "llvm-$v-tools")
done
DEMO=0
if [ "${1:-}" = --demo ]; then
  DEMO=1
  # The test command's tools (Bazel, Neovim, clang and the sanitizers, the crash
  # sweep's packages, GoogleTest, other LLVM versions) stay out of the demo.
  packages=(cmake ninja-build g++ python3 git ccache
            "clang-tidy-$LLVM_V" "libclang-$LLVM_V-dev" "llvm-$LLVM_V-dev" "llvm-$LLVM_V-tools"
            libtorch-dev libgcc-12-dev)
  EXTRA_V=""
elif [ $# -gt 0 ]; then
  echo "setup: unknown argument '$1' (usage: setup.sh [--demo])" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} packages with apt-get (a few minutes on a fresh machine): ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages and not root: run as root or install: ${missing[*]}" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The driver's tests validate SARIF reports with jsonschema: Debian's package
# serves /usr/bin/python3; another python3 first on PATH gets it from PyPI.
[ "$DEMO" = 1 ] || python3 -c 'import jsonschema' 2>/dev/null || python3 -m pip install -q jsonschema >/dev/null 2>&1 \
  || echo "setup: python3 has no jsonschema module; the driver's SARIF test will fail" >&2
[ "$DEMO" = 1 ] || python3 -c 'import yaml' 2>/dev/null || python3 -m pip install -q pyyaml >/dev/null 2>&1 \
  || echo "setup: python3 has no yaml module; the driver's CI-files test will fail" >&2

mkdir -p "$BUILD_DIR"
# A compiler cache: rebuilds (a second LLVM version's plugin, CI on a machine
# that built before, another checkout) reuse objects; paths are hashed
# relative to the checkout, so a clone elsewhere hits the same entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
[ "$DEMO" = 1 ] && echo "setup: configuring $BUILD_DIR/"
cmake -S . -B "$BUILD_DIR" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DLIBTORCH_TIDY_LLVM_VERSION="$LLVM_V" ${LIBTORCH_TIDY_CMAKE_ARGS:-} >"$BUILD_DIR/configure.log" 2>&1 \
  || { cat "$BUILD_DIR/configure.log"; exit 1; }
if [ "$DEMO" = 1 ]; then
  # One line per tenth of the build (ninja's "[N/M]"), and every line that is
  # not progress (a compiler's warning or error) as it comes.
  echo "setup: building $BUILD_DIR/ (10-20 minutes on 2 cores the first time, seconds after)"
  set -o pipefail
  NINJA_STATUS="[%f/%t] " cmake --build "$BUILD_DIR" -j"$(nproc)" | awk '
    /^\[[0-9]+\/[0-9]+\] / { split(substr($1, 2), n, "/"); step = int(10 * n[1] / n[2])
                             if (step > shown || n[1] == n[2]) { shown = step; printf "setup: built %d of %d\n", n[1], n[2]; fflush() }
                             next }
    { print; fflush() }'
else
  cmake --build "$BUILD_DIR" -j"$(nproc)"
fi

for v in $EXTRA_V; do
  [ "$v" = "$LLVM_V" ] && continue
  mkdir -p "build-$v"
  # A build for the tests only (the checks' lit suite, the driver's and the
  # core's unit tests against another LLVM): -O1 takes about a fifth less
  # CPU than -O3 to compile (UnneededRetainGraphCheck.cpp 10.9 s -> 8.9 s,
  # utils/History.cpp 14.0 s -> 11.3 s with GCC 12), and these tests' time is
  # clang's own parsing.
  cmake -S . -B "build-$v" -G Ninja "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release -DLIBTORCH_TIDY_LLVM_VERSION="$v" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DLIBTORCH_TIDY_BUILD_RUNTIME=OFF -DLIBTORCH_TIDY_BUILD_EXAMPLES=OFF -DLIBTORCH_TIDY_TORCH_PCH=OFF \
    ${LIBTORCH_TIDY_CMAKE_ARGS:-} >"build-$v/configure.log" 2>&1 \
    || { cat "build-$v/configure.log"; exit 1; }
  cmake --build "build-$v" -j"$(nproc)"
done
