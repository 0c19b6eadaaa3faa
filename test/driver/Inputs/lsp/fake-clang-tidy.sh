#!/bin/sh
# Stands in for clang-tidy in the protocol tests. Its version is the real
# one's ($REAL_CLANG_TIDY); an analysis run does what $FAKE_MODE says:
#   crash  dies of SIGSEGV, as a clang-tidy crash does
#   slow   the first analysis (counted in $PWD/fake-count.txt) records its pid in
#          $PWD/fake-pids.txt and sleeps; later ones run the real clang-tidy
case "$1" in --version|--list-checks) exec "$REAL_CLANG_TIDY" "$@" ;; esac
case "$FAKE_MODE" in
  crash)
    echo "Stack dump:" >&2
    kill -SEGV $$ ;;
  slow)
    n=$(cat fake-count.txt 2>/dev/null || echo 0)
    echo $((n + 1)) > fake-count.txt
    if [ "$n" = 0 ]; then
      echo $$ >> fake-pids.txt
      sleep 120
    fi ;;
esac
exec "$REAL_CLANG_TIDY" "$@"
