#!/usr/bin/env bash
# After v21's final run: why the skew path loses to the grid path on
# rmsnorm_backward's 2^20-wide rows (v21a: 0.88-0.90x) while it wins on
# softmax_backward's, the same bytes. A variant build with the skew path
# taking rmsnorm_backward up to 128 segments a row (cuda_portfolio-r128,
# -DCPK_SKEW_RMSBWD_SEG=128, v21a's rule) beside the default. One call:
#  - the variant's --test-only of rmsnorm_backward;
#  - rmsnorm_backward bf16 and fp16 32x1048576: default / r128 / default;
#  - Nsight Compute (clocks not locked) on the variant's skew_k and the
#    default's grid_k for rmsnorm_backward bf16 32x1048576, and the
#    default's skew_k for softmax_backward bf16 32x1048576.
#   BIN=DIR VAR=DIR bash scripts/capture/rmsbwd20-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: rmsbwd20-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
vr=$var/cuda_portfolio-r128
gpu_csv gpu-before.csv
run test-only-r128-rmsnorm_backward.txt 40 "$vr" --test-only \
  --op rmsnorm_backward
ONE_BUDGET=0.3
for dt in bf16 fp16; do
  bench_one def1 "$pf" rmsnorm_backward $dt 32x1048576 CPK_NONE=1
  bench_one r128 "$vr" rmsnorm_backward $dt 32x1048576 CPK_NONE=1
  bench_one def2 "$pf" rmsnorm_backward $dt 32x1048576 CPK_NONE=1
done
secs="SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats ComputeWorkloadAnalysis"
NCU_K=skew_k ncu_one ncu-r128-skew-rmsnorm_backward-bf16-32x1048576 "$vr" \
  rmsnorm_backward bf16 32x1048576 $secs
NCU_K=grid_k ncu_one ncu-def-grid-rmsnorm_backward-bf16-32x1048576 "$pf" \
  rmsnorm_backward bf16 32x1048576 $secs
NCU_K=skew_k ncu_one ncu-def-skew-softmax_backward-bf16-32x1048576 "$pf" \
  softmax_backward bf16 32x1048576 $secs
finish
exit 0
