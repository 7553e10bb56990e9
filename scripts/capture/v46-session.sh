#!/usr/bin/env bash
# v46 (docs/PERFORMANCE.md): v44b's lesson (the same warps ran 16-bit
# rmsnorm_backward's 1024-wide rows faster on smaller blocks) tried on the
# other register-only rows that miss 0.90. One experiment build, `sb`
# (-DCPK_SMALL_BLK=1 -DCPK_FCFG_KNOB=1): configurations 29-33 of
# kernels/rowfused.cu, each taken only where CPK_FCFG=N forces it, so that
# one binary runs every variant:
#   29  128 threads, 4 warp groups (rmsnorm, softmax_backward, row_sum at
#       513-1024 16-bit columns; configuration 28's shape)
#   30   64 threads, 2 warp groups, 8 blocks an SM (those and rmsnorm_bwd)
#   31  128 threads, 8 groups of 16 lanes x 8 slots (row_sum's
#       configuration 0 on half the block)
#   32  clusters of two 128-thread blocks, 4 slots (rmsnorm_backward's and
#       row_sum's 4097-8192 16-bit columns, configuration 5's groups)
#   33  clusters of two 64-thread blocks (2049-4096, configuration 3's)
# Checks: sb's FUSED --test-only of each op N holds with N forced on every
# row it has room for (edge shapes, strided rows), that op's FUSED smoke
# set under memcheck, and under racecheck for 30, 32, 33 (the new block
# and cluster shapes). Timed:
# per case the final run's build (def1, def2) around sb under each N, both
# 16-bit dtypes; Nsight Compute's stall reasons (WarpStateStats and the
# raw per-reason counters) on rmsnorm_backward bf16 65536x1024 at 256 /
# 128 / 64-thread blocks (N = 1, 28, 30); then bf16 again (pass 2), as
# far as the budget goes.
# Built here from 7e8f01c's tree (b20ce6a with CPK_SMALL_BLK added;
# since taken out again: bounds/v46-*/v46.patch.gz puts it back):
#   SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh \
#     /tmp/var "sb=-DCPK_SMALL_BLK=1 -DCPK_FCFG_KNOB=1 -Xptxas=-v"
#   BIN=DIR VAR=DIR bash scripts/capture/v46-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v46-session.sh OUTDIR [BUDGET_S]}
budget=${2:-500}
. "$(dirname "$0")/batch-lib.sh"
sb=$var/cuda_portfolio-sb
gpu_csv gpu-before.csv
# each N with the ops it holds: --test-only and the smoke set under
# memcheck, and under racecheck for the new block and cluster shapes
for nop in 29:rmsnorm 29:softmax_backward 29:row_sum 30:rmsnorm \
  30:softmax_backward 30:row_sum 30:rmsnorm_backward 31:row_sum \
  32:rmsnorm_backward 32:row_sum 33:rmsnorm_backward 33:row_sum; do
  n=${nop%%:*} op=${nop#*:}
  tools=memcheck
  case $n in 30 | 32 | 33) tools="memcheck racecheck" ;; esac
  VT_ENV=CPK_FCFG=$n VT_SEL="--op $op" VT_TLIM=40 VT_LIM=60 \
    vtools "sb$n-$op" "$sb" $tools
done
# one case: def1, sb under each N given, def2
cmp_case() {
  local suf=$1 op=$2 dt=$3 sh=$4 n
  shift 4
  bench_one "def1$suf" "$pf" "$op" "$dt" "$sh" CPK_NONE=1
  for n in "$@"; do
    bench_one "c$n$suf" "$sb" "$op" "$dt" "$sh" CPK_FCFG=$n
  done
  bench_one "def2$suf" "$pf" "$op" "$dt" "$sh" CPK_NONE=1
}
pass() {
  local suf=$1 dt
  shift
  for dt in "$@"; do
    cmp_case "$suf" rmsnorm_backward $dt 65536x1024 1 30
    cmp_case "$suf" rmsnorm $dt 65536x1024 29 30
    cmp_case "$suf" softmax_backward $dt 65536x1024 29 30
    cmp_case "$suf" row_sum $dt 65536x1024 31 29 30
    cmp_case "$suf" rmsnorm_backward $dt 8192x8192 32
    cmp_case "$suf" rmsnorm_backward $dt 16384x4096 33
    cmp_case "$suf" row_sum $dt 8192x8192 32
    cmp_case "$suf" row_sum $dt 16384x4096 33
  done
}
ONE_BUDGET=${ONE_BUDGET:-0.4}
pass -p1 bf16 fp16
for n in 1 28 30; do
  [ "$(left)" -gt 40 ] || continue
  NCU_ENV=CPK_FCFG=$n ncu_stalls "ncu-c$n-bf16-65536x1024" "$sb" \
    rmsnorm_backward bf16 65536x1024
done
pass -p2 bf16
finish_checks v46
exit 0
