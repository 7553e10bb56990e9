#!/usr/bin/env bash
# v23 (docs/PERFORMANCE.md): the skew path's ring (kernels/rowskew.cu,
# ring_k) as the build has it: no producer warp, each consumer group's
# thread 0 refilling the group's slot after the group's barrier; by default
# softmax's rows and rmsnorm's of 64 segments or fewer. One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    ring where it takes the rows (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under
#    --test-only, its FUSED smoke set under memcheck, racecheck, initcheck
#    and synccheck;
#  - the 2^18 and 2^20 rows of softmax and rmsnorm, each dtype: the ring
#    off (CPK_SKEW_RING=0: v21's skew_k) / the default / off again;
#    softmax_backward bf16 and fp32 the default / the ring (=1) / default;
#  - --test-only of the three ops (the build's default).
#   BIN=DIR bash scripts/capture/ring4-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring4-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" vtools ringall \
  "$pf" memcheck racecheck initcheck synccheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax rmsnorm; do
    for dt in bf16 fp16 fp32; do
      bench_one off1 "$pf" $op $dt $sh CPK_SKEW_RING=0
      bench_one def "$pf" $op $dt $sh CPK_NONE=1
      bench_one off2 "$pf" $op $dt $sh CPK_SKEW_RING=0
    done
  done
  for dt in bf16 fp32; do
    bench_one def "$pf" softmax_backward $dt $sh CPK_NONE=1
    bench_one ring "$pf" softmax_backward $dt $sh CPK_SKEW_RING=1
    bench_one def2 "$pf" softmax_backward $dt $sh CPK_NONE=1
  done
done
for op in softmax softmax_backward rmsnorm; do
  run test-only-$op.txt 60 "$pf" --test-only --op $op
done
finish
exit 0
