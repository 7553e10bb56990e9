#!/usr/bin/env bash
# scripts/fetch-mingw-deps.sh: everything the windows-mingw preset needs.
#
#   scripts/fetch-mingw-deps.sh [--check]
#
# 1. Debian packages: the MinGW-w64 cross compiler (posix threads flavour,
#    64-bit only), Debian's MinGW build of zlib (libz-mingw-w64-dev), Wine
#    (to run the .exe files) and dpkg-dev (for `apt-get source`).
# 2. A deb-src list of its own (/etc/apt/sources.list.d/cp-mingw-src.sources),
#    made from the machine's existing Debian `deb` entries: same URIs, suites,
#    components and keyring. No host name is written in this repository.
# 3. `apt-get source libuv1 jansson` into third_party/src, then both built as
#    static libraries with the cross compiler and installed into
#    third_party/mingw-prefix/{include,lib}. CMakePresets.json points
#    CP_DEPS_PREFIX there.
#
# Idempotent: each step is skipped when its result is already present; the
# libraries are rebuilt only when the stamp file is missing. Versions used are
# written to third_party/mingw-prefix/VERSIONS.
#
# --check  reports what is missing and exits 1 if anything is; changes nothing.
#
# Runs apt-get only as root; otherwise prints the exact sudo command to run.
set -euo pipefail

check_only=0
for a in "$@"; do
  case "$a" in
    --check) check_only=1 ;;
    *) echo "fetch-mingw-deps: unknown option '$a'" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src_dir="$root/third_party/src"
prefix="$root/third_party/mingw-prefix"
stamp="$prefix/.stamp"
triple=x86_64-w64-mingw32
cc="$triple-gcc-posix"
# (CP_MINGW_SRC_LIST: another path, for tests)
src_list=${CP_MINGW_SRC_LIST:-/etc/apt/sources.list.d/cp-mingw-src.sources}
jobs=${CP_JOBS:-2}

log() { echo "fetch-mingw-deps: $*"; }

# package:probe pairs; a probe is a file whose presence means installed.
# wine provides /usr/bin/wine, wine64 the 64-bit loader it runs; Debian 12
# has no 64-bit-only `wine64` command on PATH, so the toolchain looks for
# wine64 first and then wine.
need=(
  "gcc-mingw-w64-x86-64-posix:/usr/bin/$cc"
  "mingw-w64-x86-64-dev:/usr/share/mingw-w64/include/windows.h"
  "libz-mingw-w64-dev:/usr/$triple/include/zlib.h"
  "wine:/usr/bin/wine"
  "wine64:/usr/lib/wine/wine64"
  "dpkg-dev:/usr/bin/dpkg-source"
  "cmake:/usr/bin/cmake"
  "ninja-build:/usr/bin/ninja"
)

missing=()
for pair in "${need[@]}"; do
  pkg=${pair%%:*} probe=${pair#*:}
  [ -e "$probe" ] || missing+=("$pkg")
done

if [ "$check_only" = 1 ]; then
  rc=0
  if [ ${#missing[@]} -gt 0 ]; then
    log "missing packages: ${missing[*]}"
    rc=1
  fi
  if [ ! -f "$stamp" ]; then
    log "missing: libuv and jansson for MinGW in $prefix (run this script)"
    rc=1
  fi
  [ "$rc" = 0 ] && log "all present ($(tr '\n' ' ' < "$prefix/VERSIONS"))"
  exit "$rc"
fi

# Writes a deb822 deb-src list that mirrors the machine's Debian deb entries:
# every stanza of /etc/apt/sources.list.d/*.sources whose suites belong to
# this release (the codename or codename-something), and every one-line
# `deb` entry of /etc/apt/sources.list(.d/*.list) that does too. Third-party
# repositories (other suites) are left out: they publish no sources.
write_src_list() {
  local codename tmp
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  if [ -z "$codename" ]; then
    log "cannot tell the Debian codename from /etc/os-release" >&2
    return 1
  fi
  tmp=$(mktemp)
  shopt -s nullglob
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ "$f" = "$src_list" ] && continue
    awk -v cn="$codename" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris != "" && suites_ok)
          printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n%s\n",
                 uris, suites, comps,
                 (signed != "" ? "Signed-By: " signed "\n" : "")
        types = uris = suites = comps = signed = ""; suites_ok = 0
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      {
        key = $1; sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
        if (key == "Types") types = $0
        else if (key == "URIs") uris = $0
        else if (key == "Components") comps = $0
        else if (key == "Signed-By") signed = $0
        else if (key == "Suites") {
          suites = $0; n = split($0, s, " ")
          for (i = 1; i <= n; i++)
            if (s[i] == cn || index(s[i], cn "-") == 1) suites_ok = 1
        }
      }
      END { flush() }' "$f" >> "$tmp"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v cn="$codename" '
      $1 == "deb" {
        i = 2; opts = ""
        if ($2 ~ /^\[/) { while ($i !~ /\]$/) { opts = opts " " $i; i++ }
                          opts = opts " " $i; i++ }
        if ($(i + 1) != cn && index($(i + 1), cn "-") != 1) next
        comps = ""; for (j = i + 2; j <= NF; j++) comps = comps " " $j
        printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n\n",
               $i, $(i + 1), comps
      }' "$f" >> "$tmp"
  done
  if [ ! -s "$tmp" ]; then
    rm -f "$tmp"
    log "no Debian deb entries found to mirror as deb-src" >&2
    return 1
  fi
  { echo "# Written by cuda_portfolio's scripts/fetch-mingw-deps.sh: deb-src"
    echo "# twins of this machine's Debian deb entries, for apt-get source."
    cat "$tmp"; } > "$src_list"
  rm -f "$tmp"
  log "wrote $src_list"
}

# The deb-src list serves `apt-get source` only: with the libraries built
# (the stamp) it is not needed.
need_src_list=0
[ -f "$src_list" ] || [ -f "$stamp" ] || need_src_list=1
need_apt=$need_src_list
[ ${#missing[@]} -gt 0 ] && need_apt=1
if [ "$need_apt" = 1 ] && [ "$(id -u)" != 0 ]; then
  log "needs root for apt-get. Run:" >&2
  echo "  sudo $0" >&2
  if [ ${#missing[@]} -gt 0 ]; then
    echo "or install by hand: sudo apt-get update && sudo apt-get install -y" \
         "--no-install-recommends ${missing[*]}" >&2
  else
    echo "(to write $src_list, for apt-get source libuv1 jansson)" >&2
  fi
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ "$need_apt" = 1 ]; then
  [ "$need_src_list" = 0 ] || write_src_list
  log "apt-get update"
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

if [ -f "$stamp" ]; then
  log "up to date: $(tr '\n' ' ' < "$prefix/VERSIONS")"
  exit 0
fi

mkdir -p "$src_dir" "$prefix"
# apt-get source unpacks into the current folder as <name>-<upstream version>.
# It runs as an unprivileged helper where it can; as root it warns and goes on.
fetch_source() {
  local pkg=$1 dir
  dir=$(find "$src_dir" -maxdepth 1 -type d -name "$2-*" | sort | tail -n 1)
  if [ -z "$dir" ]; then
    log "apt-get source $pkg" >&2
    (cd "$src_dir" && apt-get source -qq "$pkg" >/dev/null 2>&1 ||
       apt-get source "$pkg")
    dir=$(find "$src_dir" -maxdepth 1 -type d -name "$2-*" | sort | tail -n 1)
  fi
  [ -n "$dir" ] || { log "apt-get source $pkg gave no $2-* folder" >&2; return 1; }
  echo "$dir"
}

uv_src=$(fetch_source libuv1 libuv1)
jansson_src=$(fetch_source jansson jansson)

cross=(
  -G Ninja
  -DCMAKE_SYSTEM_NAME=Windows
  -DCMAKE_SYSTEM_PROCESSOR=x86_64
  -DCMAKE_C_COMPILER="$cc"
  -DCMAKE_RC_COMPILER="$triple-windres"
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_INSTALL_PREFIX="$prefix"
  -DCMAKE_INSTALL_LIBDIR=lib
  -DCMAKE_INSTALL_INCLUDEDIR=include
)

log "building libuv from $uv_src"
rm -rf "$src_dir/build-libuv"
cmake -S "$uv_src" -B "$src_dir/build-libuv" "${cross[@]}" \
  -DLIBUV_BUILD_TESTS=OFF -DLIBUV_BUILD_BENCH=OFF -DBUILD_TESTING=OFF \
  >/dev/null
cmake --build "$src_dir/build-libuv" -j "$jobs" --target uv_a >/dev/null
# Install by hand: libuv's install rule also wants the shared library, which
# is not needed here.
mkdir -p "$prefix/include/uv" "$prefix/lib"
cp "$uv_src/include/uv.h" "$prefix/include/"
cp "$uv_src"/include/uv/*.h "$prefix/include/uv/"
cp "$src_dir/build-libuv/libuv_a.a" "$prefix/lib/libuv_a.a"

log "building jansson from $jansson_src"
rm -rf "$src_dir/build-jansson"
cmake -S "$jansson_src" -B "$src_dir/build-jansson" "${cross[@]}" \
  -DJANSSON_BUILD_SHARED_LIBS=OFF -DJANSSON_BUILD_DOCS=OFF \
  -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF >/dev/null
cmake --build "$src_dir/build-jansson" -j "$jobs" >/dev/null
cmake --install "$src_dir/build-jansson" >/dev/null

{
  echo "libuv1 $(basename "$uv_src")"
  echo "jansson $(basename "$jansson_src")"
  echo "zlib libz-mingw-w64-dev $(dpkg-query -W -f='${Version}' libz-mingw-w64-dev)"
  echo "gcc $("$cc" -dumpfullversion)"
  echo "wine $(dpkg-query -W -f='${Version}' wine)"
} > "$prefix/VERSIONS"
touch "$stamp"
log "done: $(tr '\n' ' ' < "$prefix/VERSIONS")"
