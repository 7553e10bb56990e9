#!/usr/bin/env bash
# v23c (docs/PERFORMANCE.md): the ring variant with 6 slots (a multiple of
# its two consumer groups: each slot's A always the same group's, so no
# mbarrier waiter is two phases ahead) and B acquiring its slot through
# the slot's barrier. One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    ring where it takes the rows (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under
#    --test-only, its FUSED smoke set under memcheck, racecheck, initcheck
#    and synccheck;
#  - the 2^18 and 2^20 rows: the default / the ring (CPK_SKEW_RING=1) /
#    the ring with a lag of 3 (CPK_RING_L=3) / the default; softmax and
#    rmsnorm in each dtype, softmax_backward in bf16 and fp32;
#  - --test-only of the three ops with the ring on (CPK_SKEW_RING=1).
#   BIN=DIR bash scripts/capture/ring3-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring3-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" vtools ringall \
  "$pf" memcheck racecheck initcheck synccheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for case in softmax:bf16 softmax:fp16 softmax:fp32 rmsnorm:bf16 \
    rmsnorm:fp16 rmsnorm:fp32 softmax_backward:bf16 softmax_backward:fp32; do
    op=${case%:*} dt=${case#*:}
    bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
    bench_one ring "$pf" $op $dt $sh CPK_SKEW_RING=1
    bench_one l3 "$pf" $op $dt $sh CPK_SKEW_RING=1 CPK_RING_L=3
    bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
  done
done
for op in softmax softmax_backward rmsnorm; do
  run test-only-ring-$op.txt 60 env CPK_SKEW_RING=1 "$pf" --test-only \
    --op $op
done
finish
exit 0
