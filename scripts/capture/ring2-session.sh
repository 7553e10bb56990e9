#!/usr/bin/env bash
# v23b (docs/PERFORMANCE.md): the ring variant of the skew path with two
# consumer groups taking turns (kernels/rowskew.cu, CPK_RING_NG=2, the
# default of the build) and B's words loaded before A's work, beside the
# same with one group ($var/cuda_portfolio-ng1, -DCPK_RING_NG=1). One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    ring where it takes the rows (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under
#    --test-only, its FUSED smoke set under memcheck, racecheck, initcheck
#    and synccheck; ng1's --test-only and memcheck the same way;
#  - Nsight Compute on ring_k, softmax bf16 32x1048576;
#  - the 2^18 and 2^20 rows of the three ops, each dtype: the default /
#    the ring (CPK_SKEW_RING=1) / ng1 (CPK_SKEW_RING=1) / the default;
#  - the ring's lag 3 (CPK_RING_L=3) on softmax 16-bit;
#  - --test-only of the three ops with the ring on (CPK_SKEW_RING=1).
#   BIN=DIR bash scripts/capture/ring2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" vtools ringall \
  "$pf" memcheck racecheck initcheck synccheck
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" vtools ng1 \
  "$var/cuda_portfolio-ng1" memcheck
NCU_K=ring_k NCU_ENV=CPK_SKEW_RING=2 ncu_one ncu-ring-softmax-bf16-32x1048576 \
  "$pf" softmax bf16 32x1048576 SpeedOfLight MemoryWorkloadAnalysis \
  Occupancy LaunchStats WarpStateStats SchedulerStats
ONE_BUDGET=0.3
env_grid ring CPK_SKEW_RING=1 "softmax rmsnorm softmax_backward" \
  "bf16 fp32 fp16" "32x1048576 256x262144" ng1
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16; do
    bench_one l3 "$pf" softmax $dt $sh CPK_SKEW_RING=1 CPK_RING_L=3
  done
done
for op in softmax softmax_backward rmsnorm; do
  run test-only-ring-$op.txt 60 env CPK_SKEW_RING=1 "$pf" --test-only \
    --op $op
done
finish
exit 0
