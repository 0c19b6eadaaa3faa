#!/usr/bin/env bash
# Runs every torch- check over a corpus of real LibTorch C++ files and tallies
# the warnings per check, for the precision audit in docs/precision.md.
#   scripts/precision-audit.sh CORPUS_DIR FLAGS_FILE [OUT_DIR]
#
# CORPUS_DIR  a directory of .cpp files fetched separately (this script never
#             downloads anything). Every directory named `_stubs` on the path
#             from CORPUS_DIR down to a file is added to its include path, as is
#             the file's own directory and a sibling `include/` directory, so a
#             repository's headers (or stand-ins for them) can sit beside it.
#             Files under a `_stubs` directory are not audited. A file
#             FILE.flags beside a file adds flags for that file alone (e.g.
#             -std=c++20 for code that needs it); a header or template
#             file (.h, .hpp, .tpp, .inl) is audited only when it has such a
#             FILE.flags (typically `-x c++` plus what it needs).
# FLAGS_FILE  compiler flags, whitespace-separated, e.g.
#               -std=c++17 -isystem /usr/include/torch/csrc/api/include
# OUT_DIR     where the per-file logs and the summary go (default:
#             precision-audit-out).
# Environment: PLUGIN (default build/lib/LibTorchTidy.so), CHECKS (default
# -*,torch-*), CLANG_TIDY (default clang-tidy of LLVM 19).
#
# Writes OUT_DIR/<file>.log (clang-tidy's output), OUT_DIR/warnings.tsv (file,
# line, column, check, message), OUT_DIR/files.tsv (file, status: ok or
# parse-error, warning count, seconds) and prints the warnings per check.
# A file that does not parse (clang-diagnostic-error) is counted as skipped and
# its warnings are left out of the tally. Files run one after another: each
# costs 8-25 s of parsing <torch/torch.h>.
set -euo pipefail
if (($# < 2)); then
  sed -n '2,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
CORPUS=$(cd "$1" && pwd)
FLAGS_FILE=$2
OUT=${3:-precision-audit-out}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TIDY=${CLANG_TIDY:-/usr/lib/llvm-${LIBTORCH_TIDY_LLVM_VERSION:-19}/bin/clang-tidy}
PLUGIN=${PLUGIN:-$ROOT/${BUILD_DIR:-build}/lib/LibTorchTidy.so}
CHECKS=${CHECKS:--*,torch-*}
read -r -a FLAGS < <(tr "\n" " " <"$FLAGS_FILE"; echo) || true

mkdir -p "$OUT"
: >"$OUT/warnings.tsv"
: >"$OUT/files.tsv"

while IFS= read -r -d '' file; do
  rel=${file#"$CORPUS"/}
  dir=$(dirname "$file")
  includes=(-I "$dir")
  [[ -d $dir/../include ]] && includes+=(-I "$dir/../include")
  d=$dir
  while :; do
    [[ -d $d/_stubs ]] && includes+=(-I "$d/_stubs")
    [[ $d == "$CORPUS" || $d == / ]] && break
    d=$(dirname "$d")
  done
  extra=()
  [[ -f $file.flags ]] && read -r -a extra < <(tr "\n" " " <"$file.flags"; echo) || true
  log="$OUT/${rel//\//__}.log"
  start=$(date +%s)
  rc=0
  "$TIDY" --load "$PLUGIN" --checks="$CHECKS" "$file" -- "${FLAGS[@]}" "${extra[@]}" "${includes[@]}" >"$log" 2>&1 || rc=$?
  secs=$(($(date +%s) - start))
  if ((rc >= 126)); then
    status=tool-error # clang-tidy could not run, or crashed: never "ok"
  elif grep -q '\[clang-diagnostic-error\]' "$log"; then
    status=parse-error
  else
    status=ok
  fi
  count=0
  if [[ $status == ok ]]; then
    count=$(grep -cE '^[^ ]+:[0-9]+:[0-9]+: warning: .*\[torch-[a-z-]+\]$' "$log" || true)
    grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: .*\[torch-[a-z-]+\]$' "$log" \
      | sed -E "s#^([^:]+):([0-9]+):([0-9]+): warning: (.*) \[(torch-[a-z-]+)\]\$#\1\t\2\t\3\t\5\t\4#" \
      | sed "s#^$CORPUS/##" >>"$OUT/warnings.tsv" || true
  fi
  printf '%s\t%s\t%s\t%s\n' "$rel" "$status" "$count" "$secs" >>"$OUT/files.tsv"
  printf '%-90s %-12s %3s warnings %4ss\n' "$rel" "$status" "$count" "$secs"
done < <(
  find "$CORPUS" -name _stubs -prune -o -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \) -print0
  find "$CORPUS" -name _stubs -prune -o -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.tpp' -o -name '*.inl' \) \
    -exec test -f '{}.flags' ';' -print0
)

echo
echo "files: $(wc -l <"$OUT/files.tsv") ($(grep -c $'\tok\t' "$OUT/files.tsv" || true) parsed," \
  "$(grep -c $'\tparse-error\t' "$OUT/files.tsv" || true) skipped: parse errors)"
echo "warnings per check:"
cut -f4 "$OUT/warnings.tsv" | sort | uniq -c | sort -rn
failed=$(grep -c $'\ttool-error\t' "$OUT/files.tsv" || true)
if ((failed > 0)); then
  echo "precision-audit: clang-tidy did not run to the end on $failed file(s) (status tool-error; see their logs)" >&2
  exit 1
fi
