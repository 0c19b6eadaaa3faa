#!/usr/bin/env bash
# The crash sweep (docs/crash-sweep.md): scripts/crash-sweep.py, whose --help says more.
exec python3 "$(dirname "$0")/crash-sweep.py" "$@"
