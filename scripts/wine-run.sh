#!/bin/sh
# scripts/wine-run.sh: runs a Windows program under Wine for the windows-mingw
# preset's tests (its CMAKE_CROSSCOMPILING_EMULATOR).
#
#   scripts/wine-run.sh PREFIX PROGRAM.exe [ARGS...]
#
# PREFIX is the Wine prefix (Wine's fake C: drive), kept in the build tree so
# that CI starts from nothing and ~/.wine is never touched. The exit status
# is the program's.
#
# Why a wrapper: the first Wine process starts wineserver and Wine's system
# processes (services.exe and friends), and they inherit its stdout/stderr.
# Started from ctest, they would hold the test's output pipe open, and ctest
# waits for the pipe: every test would take seconds. So the wrapper starts the
# server and those processes itself, once, detached from the caller's output,
# under a lock so that parallel tests do it once. The server stays 60 s after
# its last client, then ends by itself: nothing is left behind in CI.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: wine-run.sh PREFIX PROGRAM.exe [ARGS...]" >&2
  exit 2
fi
prefix=$1
shift
export WINEPREFIX="$prefix" WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko: no test needs .NET or HTML, and without this the first
# start would look for their installers.
export WINEDLLOVERRIDES="mscoree,mshtml="
wine=${CP_WINE:-}
if [ -z "$wine" ]; then
  wine=$(command -v wine64 || command -v wine || true)
fi
if [ -z "$wine" ]; then
  echo "wine-run: no wine64 or wine on PATH (scripts/fetch-mingw-deps.sh)" >&2
  exit 2
fi
mkdir -p "$prefix"
(
  flock 9
  # First use: create the prefix (about 10 s on the CI machine).
  # What Wine starts here outlives this script: it must not inherit the
  # lock (9>&-), or the next test would wait for it.
  [ -f "$prefix/system.reg" ] || wineboot -u 9>&-
  # Succeeds only when no server runs for this prefix; then bring up the
  # system processes now, while our output goes nowhere.
  if wineserver -p60 9>&-; then
    wineboot 9>&-
  fi
) 9>"$prefix.lock" </dev/null >/dev/null 2>&1
exec "$wine" "$@"
