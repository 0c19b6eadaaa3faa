#!/usr/bin/env bash
# Format test of the runtime's memory snapshots, without a GPU: PyTorch's own
# reader (torch.cuda._memory_viz of the PyPI torch, the code behind
# https://pytorch.org/memory_viz) must load
#   - a snapshot with CUDA-like segments, blocks in every state and a device
#     trace, written by the runtime's pickle writer (runtime_snapshot_writer:
#     the shape the runtime writes from LibTorch 1.13's CUDA allocator), and
#   - the CPU snapshot a growing example writes with LIBTORCH_TIDY_TRACE=1,
#     whose frames must name the function that leaks.
# Installs the torch wheel of .whl/ (scripts/test-torch2.sh downloads it) with
# its dependencies into a virtual environment (about 5 GB, 3-4 minutes the
# first time; reused after). The real CUDA snapshot is checked by
# scripts/gpu-check.sh.
#   BUILD_DIR=build  WHL_DIR=.whl  VENV=$WHL_DIR/venv  TORCH_SPEC=torch
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
WHL_DIR=${WHL_DIR:-.whl}
VENV=${VENV:-$WHL_DIR/venv}
start=$SECONDS
for f in "$BUILD_DIR/bin/runtime_snapshot_writer" "$BUILD_DIR/examples/example_eval_without_no_grad"; do
  [ -x "$f" ] || { echo "test-snapshot-format: $f is missing: build first (scripts/setup.sh)" >&2; exit 2; }
done

PY="$VENV/bin/python"
if ! "$PY" -c 'import torch.cuda._memory_viz' >/dev/null 2>&1; then
  whl=$(ls "$WHL_DIR"/torch-*.whl 2>/dev/null | sort -V | tail -1 || true)
  mkdir -p "$WHL_DIR"
  if [ -z "$whl" ]; then
    echo "test-snapshot-format: downloading ${TORCH_SPEC:-torch} from PyPI (about 540 MB)"
    python3 -m pip download --quiet --no-deps -d "$WHL_DIR" "${TORCH_SPEC:-torch}"
    whl=$(ls "$WHL_DIR"/torch-*.whl | sort -V | tail -1)
  fi
  echo "test-snapshot-format: installing $(basename "$whl") and its dependencies into $VENV"
  [ -x "$PY" ] || python3 -m venv "$VENV"
  "$PY" -m pip install --quiet "$whl"
fi
"$PY" -c 'import torch; print("test-snapshot-format: reader of torch", torch.__version__)' 2>/dev/null

work="$BUILD_DIR/snapshot-format"
rm -rf "$work"
mkdir -p "$work"
"$BUILD_DIR/bin/runtime_snapshot_writer" "$work/synthetic.pickle"
LIBTORCH_TIDY_TRACE=1 LIBTORCH_TIDY_MAX_ITERATIONS=20 LIBTORCH_TIDY_REPORT="$work/eval.json" CUDA_VISIBLE_DEVICES= \
  "$BUILD_DIR/examples/example_eval_without_no_grad" >"$work/eval.log" 2>&1
[ -e "$work/eval.json.cpu-snapshot.pickle" ] || { echo "test-snapshot-format: the example wrote no CPU snapshot" >&2; cat "$work/eval.log"; exit 1; }
"$PY" -W ignore test/runtime/snapshot_format_test.py --synthetic "$work/synthetic.pickle" \
  --cpu "$work/eval.json.cpu-snapshot.pickle" --cpu-function "ClassifierImpl::forward" 2>&1 | grep -v "^  cpu = \|UserWarning"
echo "test-snapshot-format: done in $((SECONDS - start)) s"
