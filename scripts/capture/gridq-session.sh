#!/usr/bin/env bash
# An experiment after v11 (docs/PERFORMANCE.md, "What bounds"): the grid
# path's 256-thread kernels as two blocks per SM on alternate batches
# (cuda_portfolio-q2: hint-variants.sh q2=-DCPK_GRID_Q=2; the measured one
# was built from the patch kept beside its results, gridq.patch.gz, on
# 47055df), against the final binary ($pf) with the grid path forced
# and with its default pick, one lease: the variant's verification through
# the grid path, its FUSED smoke set through the grid path under memcheck
# and racecheck, then the 16-bit 2^18-wide cases (the 256-thread ones)
# default / forced / variant / default:
#   bash scripts/capture/gridq-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: gridq-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-q2
gpu_csv gpu-before.csv
gridall "$v" memcheck racecheck
ONE_RESERVE=15 ONE_BUDGET=0.3
for op in rmsnorm softmax softmax_backward row_sum rmsnorm_backward; do
  for dt in bf16 fp16; do
    bench_one def1 "$pf" $op $dt 256x262144 CPK_NONE=1
    bench_one grid "$pf" $op $dt 256x262144 CPK_GRID_MIN=131073
    bench_one q2 "$v" $op $dt 256x262144 CPK_GRID_MIN=131073
    bench_one def2 "$pf" $op $dt 256x262144 CPK_NONE=1
  done
done
finish
exit 0
