#!/usr/bin/env bash
# v24b (docs/PERFORMANCE.md): the ring with four consumer groups of 4 warps
# on segments of 16 KiB (12 slots, a lag of 4), CPK_RING_G4=1, against
# v23's two groups on 32 KiB. One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    ring with four groups where they take the rows (CPK_SKEW_MIN=1
#    CPK_SKEW_RING=2 CPK_RING_G4=1) under --test-only, its FUSED smoke set
#    under memcheck, racecheck, initcheck and synccheck;
#  - the ring's 2^18 and 2^20 rows, default / g4 / default, and
#    softmax_backward bf16 and fp32 default / the four-group ring / default;
#  - the experiment build cuda_portfolio-prof (CPK_RING_PROF=1) with four
#    groups on softmax bf16 and rmsnorm bf16 at 2^20;
#  - --test-only of the three ops with CPK_RING_G4=1 (the build's plan).
#   BIN=DIR VAR=DIR bash scripts/capture/ring6-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring6-session.sh OUTDIR [BUDGET_S]}
budget=${2:-220}
. "$(dirname "$0")/batch-lib.sh"
pv=$var/cuda_portfolio-prof
gpu_csv gpu-before.csv
VT_TLIM=40 VT_LIM=40 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2 CPK_RING_G4=1" \
  vtools g4all "$pf" memcheck racecheck initcheck synccheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for c in "softmax bf16" "softmax fp16" "softmax fp32" "rmsnorm bf16" \
    "rmsnorm fp16" "rmsnorm fp32"; do
    set -- $c
    bench_one def1 "$pf" $1 $2 $sh CPK_NONE=1
    bench_one g4 "$pf" $1 $2 $sh CPK_RING_G4=1
    bench_one def2 "$pf" $1 $2 $sh CPK_NONE=1
  done
  for dt in bf16 fp32; do
    bench_one def1 "$pf" softmax_backward $dt $sh CPK_NONE=1
    bench_one g4 "$pf" softmax_backward $dt $sh CPK_SKEW_RING=1 CPK_RING_G4=1
    bench_one def2 "$pf" softmax_backward $dt $sh CPK_NONE=1
  done
done
for c in "softmax bf16" "rmsnorm bf16"; do
  set -- $c
  bench_one prof4 "$pv" $1 $2 32x1048576 CPK_RING_G4=1
done
for op in softmax softmax_backward rmsnorm; do
  run test-only-g4-$op.txt 40 env CPK_RING_G4=1 "$pf" --test-only --op $op
done
finish
exit 0
