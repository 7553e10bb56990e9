#!/usr/bin/env bash
# Builds cuda_portfolio variants that differ from build/linux's only in
# experiment macros of the kernels, for side-by-side runs on the GPU machine
# (docs/PERFORMANCE.md): the cache hints of the FUSED row loads and stores
# (kernels/rowfused.cu: CPK_FUSED_LD_CS, CPK_FUSED_ST_PLAIN), rmsnorm_bwd's
# dw accumulators (CPK_FUSED_DW_SMEM). Run here, after
# `cmake --build build/linux`:
#   [SOURCES="kernels/a.cu kernels/b.cu"] \
#     bash scripts/capture/hint-variants.sh OUTDIR NAME=DEFINES...
#   e.g. hint-variants.sh .carry/bin cs=-DCPK_FUSED_LD_CS=1 \
#          stplain=-DCPK_FUSED_ST_PLAIN=1
#   hint-variants.sh /tmp/var dws=-DCPK_FUSED_DW_SMEM=1
# SOURCES (default kernels/rowfused.cu) are the files recompiled; on
# 2026-11-29 SOURCES="kernels/softmax.cu kernels/softmax_bwd.cu
# kernels/rmsnorm.cu" built fwd=-DCPK_SPLIT_REVERSE=0 against sources that
# then reversed the SPLIT second kernels by default (v5a, since removed).
# (On 2026-11-29 the default build still loaded with .cs, and the variants
# run were ld1 = loads through the read-only path, now the default, and
# ld1st1 = that and plain stores, now -DCPK_FUSED_ST_PLAIN=1, under the
# macro names of that day.)
# PATCH=FILE: a diff (git apply's) applied to the tree while the variants
# compile and taken back after, also on failure: a variant whose code is
# not behind a macro (NAME= with no DEFINES), e.g. the twenty-second
# session's `PATCH=results/h200/bounds/s22-rbpf-ncu-h100-2026-12-07T1553/rbpf.patch
# hint-variants.sh .carry/var new=`. build/linux is not touched either way.
# Each NAME becomes OUTDIR/cuda_portfolio-NAME (stripped): each of SOURCES
# compiled with the build's own command plus DEFINES, put in a copy of
# libcp_kernels.a in place of the original object, and linked with the
# build's own link command.
set -eu
outdir=${1:?usage: hint-variants.sh OUTDIR NAME=DEFINES...}
shift
b=$PWD/build/linux
sources=${SOURCES:-kernels/rowfused.cu}
link=$(cd "$b" && ninja -t commands bin/cuda_portfolio | tail -1)
patch=${PATCH:-}
if [ -n "$patch" ]; then
  git apply --check "$patch" || {
    echo "hint-variants: $patch does not apply to this tree" >&2
    exit 2
  }
  git apply "$patch"
  trap 'git apply -R "$patch"' EXIT
fi
mkdir -p "$outdir"
for spec in "$@"; do
  name=${spec%%=*}
  defs=${spec#*=}
  w=$(mktemp -d)
  cp "$b/kernels/libcp_kernels.a" "$w/libcp_kernels.a"
  for src in $sources; do
    cc=$(python3 -c '
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith(sys.argv[2]):
        print(e["command"])' "$b/compile_commands.json" "$src")
    [ -n "$cc" ] || { echo "hint-variants: $src not in compile_commands.json" >&2; exit 2; }
    obj=$(basename "$src").o
    # the build's command, its object redirected into the scratch folder
    (cd "$b" && eval "${cc% -o *} $defs -o $w/$obj")
    (cd "$w" && ar r libcp_kernels.a "$obj")
  done
  l=${link//kernels\/libcp_kernels.a/$w/libcp_kernels.a}
  (cd "$b" && eval "${l//-o bin\/cuda_portfolio/-o $w/cuda_portfolio}")
  strip -o "$outdir/cuda_portfolio-$name" "$w/cuda_portfolio"
  rm -rf "$w"
  echo "hint-variants: $outdir/cuda_portfolio-$name ($defs; $sources)"
done
