#!/usr/bin/env bash
# The Debian package of a build, used from its files alone:
#   deb_test.sh BUILD_DIR SOURCE_DIR LLVM_MAJOR TORCH_CXXFLAGS [TORCH_DIR]
# builds it with CPack, checks its name, dependencies and layout, unpacks it
# into a fresh root, runs the unpacked libtorch-tidy on a bundled example,
# builds a project that runs the checks in its build through
# find_package(LibTorchTidy) and libtorch_tidy_enable() from the unpacked root
# and, when the package holds the runtime companion, configures a project that
# does find_package(LibTorchTidyRuntime) from the unpacked root.
set -euo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) v=$3 torch_cxxflags=$4 torch_dir=${5:-}
work=$build/test/package
rm -rf "$work" && mkdir -p "$work"
fail() { echo "deb_test: $*" >&2; exit 1; }

cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" > "$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack failed"; }
debs=("$work"/pkg/libtorch-tidy-llvm"$v"_*.deb)
[ -f "${debs[0]}" ] || fail "no libtorch-tidy-llvm${v}_*.deb in $work/pkg"
deb=${debs[0]}
echo "package: $(basename "$deb")"

# Dependencies: Debian packages only, those of the clang-tidy it loads into.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for p in "clang-tidy-$v" "libllvm$v" "libclang-cpp$v"; do
  grep -Eq "(^|, )$p( |,|$)" <<<"$depends" || fail "Depends lacks $p: $depends"
done
other=$([ "$v" = 19 ] && echo 22 || echo 19)
! grep -Eq "(clang-tidy-|libllvm|libclang-cpp)$other" <<<"$depends" || fail "Depends names LLVM $other: $depends"

# Recommends: clang's OpenMP header (omp.h), for projects built with -fopenmp.
recommends=$(dpkg-deb -f "$deb" Recommends)
echo "Recommends: $recommends"
grep -Eq "(^|, )libomp-$v-dev( |,|$)" <<<"$recommends" || fail "Recommends lacks libomp-$v-dev: $recommends"

# Unpacked into a fresh root: the install layout under /usr.
root=$work/root
dpkg-deb -x "$deb" "$root"
has_runtime=0
[ -f "$root/usr/lib/libtorch_tidy_runtime.so" ] && has_runtime=1
for f in usr/bin/libtorch-tidy usr/bin/libtorch-tidy-instrument usr/lib/LibTorchTidy.so \
         usr/lib/cmake/LibTorchTidy/LibTorchTidyConfig.cmake usr/lib/cmake/LibTorchTidy/LibTorchTidyFunctions.cmake \
         usr/share/doc/libtorch-tidy/README.md usr/share/doc/libtorch-tidy/checks/torch-accumulated-history.md \
         usr/share/libtorch-tidy/bazel/WORKSPACE usr/share/libtorch-tidy/bazel/BUILD.bazel \
         usr/share/libtorch-tidy/bazel/defs.bzl usr/share/libtorch-tidy/bazel/repositories.bzl \
         usr/share/libtorch-tidy/bazel/default.clang-tidy usr/share/libtorch-tidy/bazel/runner.sh \
         usr/share/libtorch-tidy/bazel/shims/rules_cc/cc/defs.bzl usr/share/libtorch-tidy/bazel/shims/rules_java/java/defs.bzl; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done
# The Bazel rules as docs/ci.md names them (the bazel-aspect test builds with
# the same files installed by `cmake --install`): the action wrapper runs.
[ -x "$root/usr/share/libtorch-tidy/bazel/runner.sh" ] || fail "the package's bazel/runner.sh is not executable"
grep -q 'path = "/usr/share/libtorch-tidy/bazel"' "$root/usr/share/doc/libtorch-tidy/ci.md" \
  || fail "docs/ci.md does not name the package's Bazel rules"
if [ "$has_runtime" = 1 ]; then
  for f in usr/include/libtorch_tidy/probe.h usr/lib/cmake/LibTorchTidyRuntime/LibTorchTidyRuntimeConfig.cmake; do
    [ -e "$root/$f" ] || fail "the package lacks /$f"
  done
  grep -Eq "(^|, )libtorch-dev( |,|$)" <<<"$depends" || fail "Depends lacks libtorch-dev: $depends"
fi

# The unpacked command on a bundled example: it finds the plugin and the docs
# beside itself in the root (no override from the environment).
proj=$work/example
mkdir -p "$proj"
cp "$src/examples/accumulated_history.cpp" "$proj/train.cpp"
probe_inc=$src/runtime/include
[ "$has_runtime" = 1 ] && probe_inc=$root/usr/include
python3 "$src/test/make_compdb.py" "$proj" "$proj/train.cpp" -- $torch_cxxflags "-I$probe_inc"
rc=0
(cd "$proj" && env -u LIBTORCH_TIDY_PLUGIN -u LIBTORCH_TIDY_CLANG_TIDY \
   "$root/usr/bin/libtorch-tidy" -p "$proj" --format=sarif -o "$work/report.sarif" > "$work/run.log" 2>&1) || rc=$?
[ "$rc" = 1 ] || { cat "$work/run.log"; fail "expected exit 1 (findings), got $rc"; }
grep -q '"ruleId": "torch-accumulated-history"' "$work/report.sarif" || fail "no torch-accumulated-history finding"
# The package links to the published pages of its version (the build's
# LIBTORCH_TIDY_DOCS_URL; when configured empty, to its installed docs), and
# LIBTORCH_TIDY_DOCS_URL set empty at run time gives the installed docs.
docs_url=$(sed -n 's/^LIBTORCH_TIDY_DOCS_URL:STRING=//p' "$build/CMakeCache.txt")
[ -n "$docs_url" ] || docs_url=file://$root/usr/share/doc/libtorch-tidy
grep -q "\"helpUri\": \"$docs_url/checks/torch-accumulated-history.md\"" "$work/report.sarif" \
  || fail "the report does not link $docs_url/checks/torch-accumulated-history.md"
(cd "$proj" && env -u LIBTORCH_TIDY_PLUGIN -u LIBTORCH_TIDY_CLANG_TIDY LIBTORCH_TIDY_DOCS_URL= \
   "$root/usr/bin/libtorch-tidy" -p "$proj" --format=sarif -o "$work/report-local.sarif" > "$work/run.log" 2>&1) || true
grep -q "file://$root/usr/share/doc/libtorch-tidy/checks/torch-accumulated-history.md" "$work/report-local.sarif" \
  || fail "with LIBTORCH_TIDY_DOCS_URL empty, the report does not link the installed docs"
"$root/usr/bin/libtorch-tidy" --version | grep -q "for clang-tidy $v" || fail "not the libtorch-tidy for clang-tidy $v"
echo "libtorch-tidy from the package: torch-accumulated-history found in the example"

# The checks in a CMake build: find_package(LibTorchTidy) resolves into the
# unpacked root, libtorch_tidy_enable() loads the package's plugin, and a
# finding fails the build with WARNINGS_AS_ERRORS (mock LibTorch headers: the
# build compiles without LibTorch).
cmake -S "$src/test/driver/Inputs/cmake-enable" -B "$work/enable" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" \
      -DMOCKS="$src/test/checks/Inputs" -DENABLE_ARGS=WARNINGS_AS_ERRORS > "$work/enable.log" 2>&1 \
  || { cat "$work/enable.log"; fail "configuring the libtorch_tidy_enable project failed"; }
grep -q "LibTorchTidy_DIR:PATH=$root/usr/lib/cmake/LibTorchTidy" "$work/enable/CMakeCache.txt" \
  || fail "find_package(LibTorchTidy) did not find the package's config"
grep -q -- "--load=$root/usr/lib/LibTorchTidy.so" "$work/enable/CMakeFiles/rules.ninja" \
  || fail "libtorch_tidy_enable does not load the package's plugin"
grep -q -- "$root/usr/bin/libtorch-tidy;tidy;" "$work/enable/CMakeFiles/rules.ninja" \
  || fail "libtorch_tidy_enable does not run clang-tidy through the package's libtorch-tidy tidy"
! cmake --build "$work/enable" > "$work/enable-build.log" 2>&1 || fail "a finding did not fail the build"
grep -q "evaluate.cpp:7:21: error: forward pass in evaluation code" "$work/enable-build.log" \
  || { cat "$work/enable-build.log"; fail "no torch-eval-without-no-grad error in the build output"; }
ls "$work/enable/.libtorch-tidy-cache/pch/"*.pch > /dev/null 2>&1 \
  || fail "the build did not share a precompiled LibTorch header with clang-tidy"
echo "libtorch_tidy_enable from the package: the finding fails the build, one shared precompiled header"

# clangd with the checks (built when clangd's libraries were found): in the
# package, depending on what it links (gRPC, protobuf), and the unpacked one
# shows a torch- finding of an open file over LSP.
if [ -x "$build/bin/libtorch-tidy-clangd" ]; then
  [ -x "$root/usr/bin/libtorch-tidy-clangd" ] || fail "the package lacks /usr/bin/libtorch-tidy-clangd"
  grep -Eq "(^|, )libgrpc\+\+[0-9.]+( |,|$)" <<<"$depends" || fail "Depends lacks libgrpc++: $depends"
  python3 "$src/test/driver/Inputs/mkproject.py" "$src/test/clangd/Inputs/project" "$work/clangd" "$src/test/checks/Inputs"
  printf "Checks: '-*,torch-*'\n" > "$work/clangd/.clang-tidy"
  printf 'Diagnostics:\n  ClangTidy:\n    FastCheckFilter: Loose\n' > "$work/clangd/.clangd"
  python3 "$src/test/clangd/Inputs/clangd_session.py" plain --clangd "$root/usr/bin/libtorch-tidy-clangd" \
    --project "$work/clangd" > "$work/clangd.log" 2>&1 || { cat "$work/clangd.log"; fail "the package's clangd failed"; }
  grep -q "torch-eval-without-no-grad" "$work/clangd.log" || { cat "$work/clangd.log"; fail "no torch- finding from the package's clangd"; }
  echo "libtorch-tidy-clangd from the package: torch-eval-without-no-grad over LSP"
fi

# A downstream project: find_package(LibTorchTidyRuntime) resolves into the
# unpacked root (configured only: test/runtime's install test builds and runs
# the same consumer against `cmake --install`).
if [ "$has_runtime" = 1 ]; then
  cmake -S "$src/test/runtime/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$root/usr" ${torch_dir:+-DTorch_DIR="$torch_dir"} > "$work/consumer.log" 2>&1 \
    || { cat "$work/consumer.log"; fail "configuring the consumer failed"; }
  grep -q "LibTorchTidyRuntime_DIR:PATH=$root/usr/lib/cmake/LibTorchTidyRuntime" "$work/consumer/CMakeCache.txt" \
    || fail "the consumer did not find the package's LibTorchTidyRuntime"
  grep -q "$root/usr/lib/libtorch_tidy_runtime.so" "$work/consumer/build.ninja" \
    || fail "the consumer does not link the package's runtime"
  echo "find_package(LibTorchTidyRuntime) from the package: the consumer links $root/usr/lib/libtorch_tidy_runtime.so"
fi
