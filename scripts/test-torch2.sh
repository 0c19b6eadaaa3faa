#!/usr/bin/env bash
# Builds and tests the runtime companion against LibTorch 2.x from the PyPI
# `torch` wheel (built with CUDA), next to Debian's LibTorch 1.13 used by the
# main build. Plain compiler commands, no CMake package: the wheel's
# TorchConfig.cmake insists on a CUDA toolkit (nvcc), which a CPU machine need
# not have. The runtime and its GoogleTest link libtorch_cpu and libc10 only;
# those still need libcudart.so.13 and libcupti.so.13 (NEEDED entries of
# libtorch_cpu), taken from a CUDA toolkit when present (CUDA_HOME,
# /usr/local/cuda) or from the nvidia-cuda-runtime / nvidia-cuda-cupti wheels.
# With a toolkit, the CUDA statistics code is compiled too (not run: no GPU).
# Then the GradScaler parity test: the C++ GradScaler (this LibTorch, and the
# main build's 1.13 when built) against Python's torch.amp.GradScaler of the
# same wheel, in a virtual environment .whl/venv that it installs once.
#   TORCH_SPEC=torch  WHL_DIR=.whl  BUILD_DIR=build-torch2  JOBS=2  LIBTORCH_TIDY_SKIP_PARITY=1
#   scripts/test-torch2.sh --fetch   only the downloads and installs (the wheel,
#                                    the CUDA runtime wheels, the parity's virtual
#                                    environment), nothing built: scripts/test.sh
#                                    runs it in the background while it builds, so
#                                    that the network's time overlaps the CPU's.
set -euo pipefail
FETCH_ONLY=0
if [ "${1:-}" = --fetch ]; then FETCH_ONLY=1; fi
cd "$(dirname "$0")/.."
WHL_DIR=${WHL_DIR:-.whl}
BUILD_DIR=${BUILD_DIR:-build-torch2}
JOBS=${JOBS:-2}
TORCH_SPEC=${TORCH_SPEC:-torch}
PIP=(python3 -m pip)
if ! "${PIP[@]}" --version >/dev/null 2>&1; then
  # In the background (--fetch) apt-get may be busy with another install.
  if [ $FETCH_ONLY = 1 ]; then echo "test-torch2: --fetch: no pip; the step itself installs it" >&2; exit 0; fi
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
  else
    echo "test-torch2: needs pip (python3 -m pip) to download the torch wheel" >&2
    exit 2
  fi
fi
# unzip MEMBER-PREFIXES of a wheel into a directory (python3, no unzip needed);
# with --flat, file names only.
extract() {
  python3 - "$@" <<'PY'
import os, sys, zipfile
flat = sys.argv[1] == "--flat"
args = sys.argv[2:] if flat else sys.argv[1:]
whl, dest, prefixes = args[0], args[1], args[2:]
with zipfile.ZipFile(whl) as z:
    for name in z.namelist():
        base = os.path.basename(name)
        if flat:
            if any(base.startswith(p) for p in prefixes):
                with open(os.path.join(dest, base), "wb") as f:
                    f.write(z.read(name))
        elif any(name.startswith(p) for p in prefixes):
            z.extract(name, dest)
PY
}
start=$SECONDS
mkdir -p "$WHL_DIR" "$BUILD_DIR/obj"

whl=$(ls "$WHL_DIR"/torch-*.whl 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$whl" ]; then
  echo "test-torch2: downloading $TORCH_SPEC from PyPI (about 540 MB)"
  "${PIP[@]}" download --quiet --no-deps -d "$WHL_DIR" "$TORCH_SPEC"
  whl=$(ls "$WHL_DIR"/torch-*.whl | sort -V | tail -1)
fi
root="$WHL_DIR/$(basename "$whl" .whl)"
if [ ! -d "$root/torch/lib" ]; then
  extract "$whl" "$root" torch/include/ torch/lib/ torch/version.py
fi
TORCH="$root/torch"
version=$(sed -n "s/^__version__ = '\(.*\)'/\1/p" "$TORCH/version.py")
echo "test-torch2: LibTorch $version from $(basename "$whl")"

# libcudart / libcupti for the loader.
cuda_home=${CUDA_HOME:-/usr/local/cuda}
cudalibs=""
for d in "$cuda_home/lib64" "$cuda_home/lib" "$cuda_home/targets/x86_64-linux/lib"; do
  if [ -e "$d/libcudart.so.13" ] && [ -e "$d/libcupti.so.13" ]; then cudalibs=$d; break; fi
done
if [ -z "$cudalibs" ]; then
  cudalibs="$WHL_DIR/cuda-libs"
  if [ ! -e "$cudalibs/libcupti.so.13" ]; then
    echo "test-torch2: no CUDA toolkit: fetching libcudart and libcupti wheels"
    mkdir -p "$WHL_DIR/cuda-whl" "$cudalibs"
    "${PIP[@]}" download --quiet --no-deps -d "$WHL_DIR/cuda-whl" "nvidia-cuda-runtime==13.*" "nvidia-cuda-cupti==13.*"
    for w in "$WHL_DIR"/cuda-whl/*.whl; do
      extract --flat "$w" "$cudalibs" libcudart.so libcupti.so
    done
  fi
fi

# The parity's virtual environment (see below), installed once.
install_venv() {
  venv="$WHL_DIR/venv"
  marker="$venv/.installed-$(basename "$whl" .whl)"
  if [ ! -e "$marker" ]; then
    echo "test-torch2: installing $(basename "$whl") and its dependencies into $venv (once)"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --no-deps "$whl"
    mapfile -t reqs < <("$venv/bin/python" - <<'PY'
from importlib.metadata import distribution
for r in distribution("torch").requires or []:
    spec, _, marker = r.partition(";")
    name = spec.split("[")[0].split("=")[0].split("<")[0].split(">")[0].split("~")[0].strip().lower()
    if "extra ==" in marker or name in ("triton", "cuda-bindings"):
        continue
    print(spec.strip())
PY
)
    # --no-warn-conflicts: triton and cuda-bindings are left out on purpose
    "$venv/bin/python" -m pip install --quiet --no-warn-conflicts "${reqs[@]}"
    touch "$marker"
  fi
}
if [ $FETCH_ONLY = 1 ]; then
  if [ "${LIBTORCH_TIDY_SKIP_PARITY:-0}" != 1 ]; then install_venv; fi
  echo "test-torch2: --fetch: LibTorch $version, the CUDA runtime libraries and the parity's environment are in $WHL_DIR ($((SECONDS - start)) s)"
  exit 0
fi

# The wheel's C++ ABI: new (1) when libc10 exports std::__cxx11 symbols.
abi=0
if nm -D --defined-only "$TORCH/lib/libc10.so" | grep '__cxx11' >/dev/null; then abi=1; fi  # no grep -q: SIGPIPE under pipefail
CXX=${CXX:-c++}
# Allocation stacks (LIBTORCH_TIDY_TRACE=1): GCC's libbacktrace, as in the CMake build.
backtrace_lib=$("$CXX" -print-file-name=libbacktrace.a)
trace_flags=(-DLIBTORCH_TIDY_WITH_TRACE=0)
trace_libs=()
if [ -e "$backtrace_lib" ]; then
  trace_flags=(-DLIBTORCH_TIDY_WITH_TRACE=1)
  trace_libs=("$backtrace_lib" -Wl,--exclude-libs,libbacktrace.a -ldl)
fi
# Recent LibTorch 2.x headers need C++20 (operator<=>, std::bit_width); older ones accept it.
CXXFLAGS=(-std=c++20 -O2 -fPIC -D_GLIBCXX_USE_CXX11_ABI="$abi"
          -isystem "$TORCH/include" -isystem "$TORCH/include/torch/csrc/api/include" -Iruntime/include)
LIBS=(-L"$TORCH/lib" -Wl,-rpath,"$TORCH/lib" -L"$cudalibs" -Wl,-rpath,"$cudalibs"
      -Wl,--no-as-needed -ltorch_cpu -lc10 -Wl,--as-needed -lpthread)

with_cuda=0
if [ -e "$cuda_home/include/cuda_runtime_api.h" ]; then with_cuda=1; fi

# Objects in parallel (JOBS at a time).
objs=()
pids=()
for src in runtime/src/*.cpp; do
  obj="$BUILD_DIR/obj/$(basename "$src" .cpp).o"
  objs+=("$obj")
  extra=("${trace_flags[@]}")
  if [ "$(basename "$src")" = cuda_stats.cpp ] && [ $with_cuda = 1 ]; then
    extra=(-DLIBTORCH_TIDY_WITH_CUDA=1 -isystem "$cuda_home/include")
  fi
  "$CXX" "${CXXFLAGS[@]}" "${extra[@]}" -c "$src" -o "$obj" &
  pids+=($!)
  if ((${#pids[@]} >= JOBS)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
# The CUDA statistics code is compiled (when a toolkit is there) but linked
# into a separate object check only: linking it needs libtorch_cuda and all of
# the nvidia-* libraries behind it.
if [ $with_cuda = 1 ]; then
  echo "test-torch2: CUDA statistics code compiles against $version"
  "$CXX" "${CXXFLAGS[@]}" -DLIBTORCH_TIDY_WITH_CUDA=0 -c runtime/src/cuda_stats.cpp -o "$BUILD_DIR/obj/cuda_stats.o"
fi
"$CXX" -shared -o "$BUILD_DIR/libtorch_tidy_runtime.so" "${objs[@]}" "${trace_libs[@]}" "${LIBS[@]}"

RT=(-L"$BUILD_DIR" -Wl,-rpath,"$(cd "$BUILD_DIR" && pwd)" -ltorch_tidy_runtime)
# evidence_test.cpp with -g: its allocation-site tests check function and line.
"$CXX" "${CXXFLAGS[@]}" -g -c test/runtime/evidence_test.cpp -o "$BUILD_DIR/obj/evidence_test.o" &
p0=$!
"$CXX" "${CXXFLAGS[@]}" -c test/runtime/runtime_test.cpp -o "$BUILD_DIR/obj/runtime_test.o"
wait $p0
"$CXX" "$BUILD_DIR/obj/runtime_test.o" "$BUILD_DIR/obj/evidence_test.o" -o "$BUILD_DIR/runtime_tests" "${RT[@]}" "${LIBS[@]}" \
  -lgtest -lgtest_main &
p1=$!
"$CXX" "${CXXFLAGS[@]}" test/runtime/probe_test.cpp -o "$BUILD_DIR/runtime_probe_tests" "${RT[@]}" "${LIBS[@]}" \
  -lgtest -lgtest_main
wait $p1
"$CXX" "${CXXFLAGS[@]}" test/runtime/amp_test.cpp -o "$BUILD_DIR/runtime_amp_tests" "${RT[@]}" "${LIBS[@]}" \
  -lgtest -lgtest_main &
p1=$!
"$CXX" "${CXXFLAGS[@]}" test/runtime/amp_parity.cpp -o "$BUILD_DIR/amp_parity" "${RT[@]}" "${LIBS[@]}"
wait $p1
echo "test-torch2: built in $((SECONDS - start)) s"
"$BUILD_DIR/runtime_tests" --gtest_brief=1
"$BUILD_DIR/runtime_probe_tests" --gtest_brief=1
"$BUILD_DIR/runtime_amp_tests" --gtest_brief=1
echo "test-torch2: runtime tests pass against LibTorch $version ($((SECONDS - start)) s)"

# GradScaler parity: libtorch_tidy::amp::GradScaler (built above against this
# LibTorch, and the main build's against Debian's 1.13 when it is there)
# against Python's torch.amp.GradScaler of this same wheel, in a virtual
# environment of its own: the wheel without dependencies, then the ones it
# declares except triton and cuda-bindings (not needed to import it). Importing
# torch loads libtorch_cuda, so its CUDA libraries are needed even on a CPU
# machine: they come from the nvidia-* / cuda-toolkit wheels (about 3 GB,
# installed once, kept in $WHL_DIR/venv). LIBTORCH_TIDY_SKIP_PARITY=1 skips it.
if [ "${LIBTORCH_TIDY_SKIP_PARITY:-0}" != 1 ]; then
  install_venv
  parity=(--cpp "$BUILD_DIR/amp_parity")
  if [ -x build/bin/amp_parity ]; then parity+=(--cpp build/bin/amp_parity); fi
  "$venv/bin/python" -W ignore test/runtime/amp_parity.py "${parity[@]}"
  echo "test-torch2: GradScaler matches Python's torch.amp.GradScaler ($((SECONDS - start)) s)"
fi

# The checks against the 2.x headers: each check's end-to-end program
# (test/e2e/Inputs/torch-*.cpp) is analysed with the plugin of the main build,
# must still produce its check's finding, and the program with the fix-its
# applied must still compile against 2.x.
PLUGIN=${PLUGIN:-build/lib/LibTorchTidy.so}
TIDY=${TIDY:-/usr/lib/llvm-${LIBTORCH_TIDY_LLVM_VERSION:-19}/bin/clang-tidy}
if [ -e "$PLUGIN" ] && [ -x "$TIDY" ]; then
  mkdir -p "$BUILD_DIR/checks"
  failed=0
  check_one() {
    local src=$1 id=$2 copy out cfg=()
    # One copy per program and check (a program may serve several checks).
    copy="$BUILD_DIR/checks/$(basename "$src" .cpp).$id.cpp"
    out="${copy%.cpp}.log"
    cp "$src" "$copy"
    # A program's own options: PROGRAM.clang-tidy next to it.
    if [ -e "${src%.cpp}.clang-tidy" ]; then cfg=(--config-file="${src%.cpp}.clang-tidy"); fi
    "$TIDY" --load "$PLUGIN" "${SCOPE[@]}" "${cfg[@]}" --checks="-*,$id$SCOPE_CHECK" --fix --fix-notes --quiet "$copy" -- \
      "${TIDY_PCH[@]}" "${CXXFLAGS[@]}" "${CUDA_INC[@]}" >"$out" 2>&1 || true
    if ! grep -q "warning: .*\[$id\]" "$out"; then
      echo "test-torch2: $id: no finding against LibTorch $version"; sed -n 1,20p "$out"; return 1
    fi
    if ! "$CXX" "${PCH[@]}" "${CXXFLAGS[@]}" "${CUDA_INC[@]}" -fsyntax-only "$copy" >>"$out" 2>&1; then
      echo "test-torch2: $id: the fixed program does not compile against LibTorch $version"; tail -20 "$out"; return 1
    fi
    # "// expect-fixed: TEXT" lines of the program: each TEXT is a line of the
    # fixed program (the fix-it was applied, not only the finding reported).
    local want
    while IFS= read -r want; do
      if ! grep -qxF -- "$want" "$copy"; then
        echo "test-torch2: $id: the fixed program lacks the line '$want'"; return 1
      fi
    done < <(sed -n 's|^// expect-fixed: ||p' "$src")
  }
  CUDA_INC=()
  if [ $with_cuda = 1 ]; then CUDA_INC=(-isystem "$cuda_home/include"); fi
  # One precompiled <torch/torch.h> of this LibTorch, with these flags, for
  # the fixed programs' compilations (clang-tidy parses them as written):
  # about 20 s of CPU less per program. Kept while the flags are the same;
  # when it does not build, or the compiler does not take it (-Winvalid-pch
  # says why), the programs parse the headers as text.
  pch_dir="$BUILD_DIR/torch-pch"
  mkdir -p "$pch_dir"
  # Written only when missing: clang refuses a precompiled header whose source
  # file changed its modification time, so a rerun must not touch it.
  [ -e "$pch_dir/torch_pch.h" ] || printf '#include <torch/torch.h>\n' >"$pch_dir/torch_pch.h"
  # build_pch COMPILER OUTPUT WHAT: torch_pch.h precompiled by COMPILER with the
  # programs' flags into OUTPUT, kept while the compiler, the flags and the
  # LibTorch are the same (OUTPUT.key); no OUTPUT when it does not build.
  build_pch() {
    local compiler=$1 out=$2 what=$3 key
    key="$("$compiler" --version | head -1) ${CXXFLAGS[*]} ${CUDA_INC[*]} $version"
    if [ -e "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then return 0; fi
    rm -f "$out" "$out.key"
    if "$compiler" "${CXXFLAGS[@]}" "${CUDA_INC[@]}" -x c++-header "$pch_dir/torch_pch.h" \
         -o "$out" >"$out.log" 2>&1; then
      printf '%s' "$key" >"$out.key"
    else
      echo "test-torch2: the $what precompiled <torch/torch.h> did not build; parsing it per program"
      sed -n 1,5p "$out.log"
      rm -f "$out"
    fi
  }
  build_pch "$CXX" "$pch_dir/torch_pch.h.gch" "$(basename "$CXX")"
  PCH=(-include "$pch_dir/torch_pch.h" -Winvalid-pch)
  # The same header precompiled by the clang that clang-tidy is built from,
  # for the clang-tidy runs: each would otherwise parse the whole of LibTorch
  # 2.x (about 80 s of CPU per program, most of this step). The programs'
  # findings are in their own text, which clang-tidy still parses and checks;
  # a header the PCH holds is not checked again (LibTorch's own code, which
  # the checks skip anyway). When it does not build, clang-tidy parses the
  # headers as text, as before.
  TIDY_CLANG=${TIDY_CLANG:-$(dirname "$(readlink -f "$TIDY")")/clang++}
  TIDY_PCH=()
  if [ -x "$TIDY_CLANG" ]; then
    build_pch "$TIDY_CLANG" "$pch_dir/torch_tidy.pch" clang
    if [ -e "$pch_dir/torch_tidy.pch" ]; then TIDY_PCH=(-include-pch "$pch_dir/torch_tidy.pch"); fi
  fi
  # The scope module the command loads beside the plugin (libtorch-tidy-user-scope:
  # clang-tidy's AST walk stays out of the system headers, so the matchers do not
  # visit LibTorch's own declarations), as `libtorch-tidy` runs the checks.
  SCOPE=()
  SCOPE_CHECK=""
  if [ -e "$(dirname "$PLUGIN")/LibTorchTidyScope.so" ]; then
    SCOPE=(--load "$(dirname "$PLUGIN")/LibTorchTidyScope.so")
    SCOPE_CHECK=",libtorch-tidy-user-scope"
  fi
  pairs=(test/e2e/Inputs/verify_eval.cpp:torch-eval-without-no-grad)
  # AOTInductor (2.x only, so not in test/e2e/Inputs/*.cpp, which 1.13 builds
  # too: scripts/sanitize.sh): the loader in a loop, run() not a forward pass.
  pairs+=(test/e2e/Inputs/torch2/aoti_serving.cpp:torch-load-in-loop test/e2e/Inputs/torch2/aoti_serving.cpp:torch-eval-without-no-grad)
  # A program test/e2e/Inputs/torch-CHECK.cpp or torch-CHECK-WHAT.cpp serves
  # CHECK (the longest check name its file name starts with).
  mapfile -t known < <("$TIDY" --load "$PLUGIN" --checks='-*,torch-*' --list-checks | sed -n 's/^ *\(torch-[a-z0-9-]*\) *$/\1/p')
  check_of() {
    local base best="" c
    base=$(basename "$1" .cpp)
    for c in "${known[@]}"; do
      case "$base" in "$c" | "$c"-*) if ((${#c} > ${#best})); then best=$c; fi ;; esac
    done
    if [ -z "$best" ]; then echo "test-torch2: $1 names no check of the plugin" >&2; return 1; fi
    printf '%s\n' "$best"
  }
  for src in test/e2e/Inputs/torch-*.cpp; do c=$(check_of "$src") || exit 1; pairs+=("$src:$c"); done
  # Programs on the c10/cuda API (the wheel has its headers, Debian's 1.13
  # does not): parsed with the CUDA toolkit's headers, compiled only.
  if [ $with_cuda = 1 ]; then
    for src in test/e2e/Inputs/cuda/torch-*.cpp; do c=$(check_of "$src") || exit 1; pairs+=("$src:$c"); done
  else
    echo "test-torch2: no CUDA toolkit headers ($cuda_home/include): skipping test/e2e/Inputs/cuda/"
  fi
  pids=()
  for pair in "${pairs[@]}"; do
    check_one "${pair%%:*}" "${pair#*:}" &
    pids+=($!)
    if ((${#pids[@]} >= JOBS)); then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  n=${#pairs[@]}
  if [ $failed != 0 ]; then
    echo "test-torch2: the checks failed against LibTorch $version"
    exit 1
  fi
  echo "test-torch2: $n checks find their mistake and their fixes compile against LibTorch $version ($((SECONDS - start)) s)"
fi
