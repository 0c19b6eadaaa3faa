# shellcheck shell=bash
# Sourced by the precision-*-setup.sh scripts: lays out the parts of each
# project that a round analysed.
#   layout_projects SCRIPT EXPORTS_OK <<<"$TABLE"
# TABLE has one line per repository: <owner>_<repo> COMMIT PATHS... (relative
# to the copy). Each copy is CLONES/<owner>_<repo> (or <owner>+<repo>); a clone
# (with a work tree, or bare) must be at COMMIT; with EXPORTS_OK=1 a copy
# without git (`git archive COMMIT | tar -x`) is taken as it is. PATHS are
# copied to PROJECTS/<owner>_<repo>, emptied first.
layout_projects() {
  local script=$1 exports_ok=$2 name commit paths src head dst p
  while read -r name commit paths; do
    src=$CLONES/$name
    [[ -d $src ]] || src=$CLONES/${name/_/+}
    [[ -d $src ]] || { echo "$script: no copy of $name in $CLONES" >&2; exit 2; }
    if head=$(git -C "$src" rev-parse HEAD 2>/dev/null || git --git-dir="$src" rev-parse HEAD 2>/dev/null); then
      [[ $head == "$commit"* ]] || { echo "$script: $name is at ${head:0:12}, not $commit" >&2; exit 2; }
    elif [[ $exports_ok != 1 ]]; then
      echo "$script: $src is not a clone (its commit cannot be checked)" >&2
      exit 2
    fi
    dst=$PROJECTS/$name
    rm -rf "$dst"
    mkdir -p "$dst"
    for p in $paths; do
      mkdir -p "$dst/$(dirname "$p")"
      cp -r "$src/$p" "$dst/$p"
    done
  done
}
