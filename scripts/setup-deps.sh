#!/usr/bin/env bash
# scripts/setup-deps.sh: install the Debian/Ubuntu packages the build needs.
#
#   scripts/setup-deps.sh [--check] [--with-windows] [--with-report]
#   scripts/setup-deps.sh --cmake
#
# --check         only report what is missing (exit 1 if anything is).
# --cmake         print the cmake to use (PATH's when it is 3.25 or newer,
#                 else Debian's /usr/bin/cmake when that is), exit 1 if
#                 neither is: the launcher runs that one.
# --with-windows  also the MinGW-w64 cross toolchain, Wine and the libuv and
#                 jansson sources for the windows-mingw preset
#                 (scripts/fetch-mingw-deps.sh does that part).
# --with-report   also Chromium, for the report's rendering test.
#
# Runs apt-get when it can (as root); otherwise prints the exact command to
# run and exits 1. The CUDA toolkit is not a Debian package here: when nvcc is
# missing, the launcher builds repro alone and says so.
set -euo pipefail

check_only=0 windows=0 report=0 print_cmake=0
for a in "$@"; do
  case "$a" in
    --check) check_only=1 ;;
    --cmake) print_cmake=1 ;;
    --with-windows) windows=1 ;;
    --with-report) report=1 ;;
    *) echo "setup-deps: unknown option '$a'" >&2; exit 2 ;;
  esac
done

# package:probe pairs; a probe is a file whose presence means installed,
# or cmd:NAME, a command on PATH (cmake and ninja from pip, snap or a
# vendor's installer count: the GPU machine's cmake is pip's).
need=(
  "cmake:cmd:cmake"
  "ninja-build:cmd:ninja"
  "gcc:/usr/bin/gcc"
  "g++:/usr/bin/g++"
  "make:/usr/bin/make"
  "git:/usr/bin/git"
  "libuv1-dev:/usr/include/uv.h"
  "libjansson-dev:/usr/include/jansson.h"
  "zlib1g-dev:/usr/include/zlib.h"
  "python3:/usr/bin/python3"
  "python3-jsonschema:/usr/lib/python3/dist-packages/jsonschema/__init__.py"
  # Google Benchmark's compare.py (and the scipy it needs): a test checks
  # that it reads cuda_portfolio's --format gbench output.
  "libbenchmark-tools:/usr/share/benchmark/compare.py"
  "python3-scipy:/usr/lib/python3/dist-packages/scipy/__init__.py"
)
if [ "$report" = 1 ]; then
  need+=("chromium:/usr/bin/chromium")
fi

# A cmake new enough for CMakePresets.json (3.25: its cmakeMinimumRequired):
# PATH's (pip, snap or a vendor's installer count: the GPU machine's cmake
# is pip's), else Debian's /usr/bin/cmake. An older one on PATH alone is
# missing, so Debian's is installed, and the launcher runs that one.
cmake_ok() { # BINARY
  local v major minor
  v=$("$1" --version 2>/dev/null) || return 1
  v=${v%%$'\n'*}    # "cmake version 3.25.1"
  v=${v##* }
  IFS=. read -r major minor _ <<<"$v"
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  ((major > 3 || (major == 3 && minor >= 25)))
}
which_cmake() {
  local c
  for c in "$(command -v cmake 2>/dev/null)" /usr/bin/cmake; do
    [ -n "$c" ] && [ -x "$c" ] && cmake_ok "$c" && { echo "$c"; return 0; }
  done
  return 1
}
if [ "$print_cmake" = 1 ]; then
  which_cmake || {
    echo "setup-deps: no cmake 3.25 or newer (on PATH or /usr/bin)" >&2
    exit 1
  }
  exit 0
fi

probe_all() {
  missing=()
  local pair pkg probe
  for pair in "${need[@]}"; do
    pkg=${pair%%:*} probe=${pair#*:}
    case "$probe" in
      cmd:cmake) which_cmake >/dev/null || missing+=("$pkg") ;;
      cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 || missing+=("$pkg") ;;
      *) [ -e "$probe" ] || missing+=("$pkg") ;;
    esac
  done
}
probe_all

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$check_only" = 1 ]; then
    echo "setup-deps: missing packages: ${missing[*]}"
    exit 1
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "setup-deps: missing packages: ${missing[*]}" >&2
    echo "setup-deps: run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "setup-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # apt-get's exit 0 is not the probes': say what is still missing
  probe_all
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup-deps: still missing after the install: ${missing[*]}" >&2
    exit 1
  fi
fi

if [ "$windows" = 1 ]; then
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if [ "$check_only" = 1 ]; then
    exec "$here/fetch-mingw-deps.sh" --check
  fi
  exec "$here/fetch-mingw-deps.sh"
fi
exit 0
