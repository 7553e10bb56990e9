#!/usr/bin/env bash
# v20b (docs/PERFORMANCE.md; commit 8bee572, where the lag was the steps
# a row spans, one here, plus CPK_SKEW_L, default 0: since 0b8cf76 it is
# two steps plus CPK_SKEW_L): the skew path (kernels/rowskew.cu) with G a
# multiple of a row's segments, a lag of one step, rmsnorm's w staged in
# shared memory once. One lease:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    skew path (CPK_SKEW_MIN=1) under --test-only and its FUSED smoke set
#    under memcheck, racecheck, initcheck, synccheck;
#  - at 2^20 and 2^18 columns, each op and dtype: the default (the skew
#    path) / off (CPK_SKEW=0: v17's path for the width) / the lag one step
#    longer (CPK_SKEW_L=1) / the default;
#  - Nsight Compute on skew_k, softmax bf16 32x1048576 and rmsnorm fp32
#    256x262144.
#   BIN=DIR bash scripts/capture/skew2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skew2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=90 VT_ENV=CPK_SKEW_MIN=1 vtools skewall "$pf" memcheck racecheck \
  initcheck synccheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
      bench_one off "$pf" $op $dt $sh CPK_SKEW=0
      bench_one l1 "$pf" $op $dt $sh CPK_SKEW_L=1
      bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
    done
  done
done
for c in "softmax bf16 32x1048576" "rmsnorm fp32 256x262144"; do
  set -- $c
  NCU_K=skew_k ncu_one "ncu-skew-$1-$2-$3" "$pf" $1 $2 $3 SpeedOfLight \
    MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats
done
finish
exit 0
