#!/usr/bin/env bash
# v48 (docs/PERFORMANCE.md): the final run's build alone, no variant
# binary, two questions about the 2048x32768 rows (16-bit softmax and
# rmsnorm at 0.84, rmsnorm_backward at 0.75):
#   s32k   CPK_SKEW_MIN=16385 in the environment: the skew path takes the
#          rows of 16385 columns and more, so softmax and rmsnorm run on
#          the ring as it is today (v26c's stats warp, v43's plain stores;
#          last measured there as v23a, before both) and softmax_backward
#          and rmsnorm_backward on skew_k (rmsnorm_backward's last
#          measured there as v22b, before v34a's arithmetic): every dtype,
#          def / s32k / def, two passes (-p1, -p2);
#   waves  fused_k's 16-bit softmax and rmsnorm at 1848, 1980, 2048 and
#          2112 rows of 32768 (7, 7.5, 7.76 and 8 times the 264 blocks
#          that are resident: two an SM), bf16, the default build: how much
#          of the gap the last, partial wave of rows is.
# Then s32k's checks: the FUSED --test-only with the knob (its rows of
# 16385-32768 columns through the ring and skew_k) and its FUSED smoke
# set under memcheck and racecheck. The last line says whether every
# check passed.
#   BIN=DIR bash scripts/capture/v48-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v48-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
ONE_RESERVE=150
for p in 1 2; do
  BA_SUF=-p$p env_grid s32k CPK_SKEW_MIN=16385 \
    "softmax rmsnorm softmax_backward rmsnorm_backward" "bf16 fp16 fp32" \
    2048x32768
done
ONE_RESERVE=110
for op in softmax rmsnorm; do
  for r in 1848 1980 2048 2112; do
    bench_one waves "$pf" $op bf16 ${r}x32768 CPK_NONE=1
  done
done
VT_ENV=CPK_SKEW_MIN=16385 VT_TLIM=60 VT_LIM=40 vtools s32k "$pf" memcheck racecheck
finish_checks v48
exit 0
