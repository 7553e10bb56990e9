#!/usr/bin/env bash
# v23 (docs/PERFORMANCE.md): the skew path's ring variant
# (kernels/rowskew.cu, ring_k, CPK_SKEW_RING): each block's segments come
# into a ring of shared-memory slots by 1-D bulk copies from one producer
# thread, reduced and written from the slot, nothing read twice. One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    skew path (CPK_SKEW_MIN=1) and its ring wherever the ring takes the
#    rows, no fallback (CPK_SKEW_RING=2), under --test-only and its FUSED
#    smoke set under memcheck, racecheck, initcheck, synccheck;
#  - Nsight Compute on ring_k, softmax bf16 32x1048576 (that it ran, and
#    its counters);
#  - the 2^18 and 2^20 rows of the three ops, each dtype: the default /
#    the ring (CPK_SKEW_RING=1) / the default;
#  - the ring's lag (CPK_RING_L=1, 3) on softmax 16-bit and
#    softmax_backward bf16;
#  - the ring on 2048x32768 (CPK_SKEW_MIN=16385) beside the default;
#  - the build's whole --test-only with the ring on (CPK_SKEW_RING=1).
#   BIN=DIR bash scripts/capture/ring-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" vtools ringall \
  "$pf" memcheck racecheck initcheck synccheck
NCU_K=ring_k NCU_ENV=CPK_SKEW_RING=2 ncu_one ncu-ring-softmax-bf16-32x1048576 \
  "$pf" softmax bf16 32x1048576 SpeedOfLight MemoryWorkloadAnalysis \
  Occupancy LaunchStats WarpStateStats SchedulerStats
ONE_BUDGET=0.3
env_grid ring CPK_SKEW_RING=1 "softmax rmsnorm softmax_backward" \
  "bf16 fp32 fp16" "32x1048576 256x262144"
for sh in 32x1048576 256x262144; do
  for l in 1 3; do
    for dt in bf16 fp16; do
      bench_one l$l "$pf" softmax $dt $sh CPK_SKEW_RING=1 CPK_RING_L=$l
    done
    bench_one l$l "$pf" softmax_backward bf16 $sh CPK_SKEW_RING=1 \
      CPK_RING_L=$l
  done
done
for op in softmax rmsnorm softmax_backward; do
  for dt in bf16 fp32; do
    bench_one r32k "$pf" $op $dt 2048x32768 CPK_SKEW_RING=1 \
      CPK_SKEW_MIN=16385
  done
done
run test-only-ring.txt $(($(left) - 20)) env CPK_SKEW_RING=1 "$pf" \
  --test-only
finish
exit 0
