#!/usr/bin/env bash
# v24a (docs/PERFORMANCE.md): where the ring's iterations go. One call:
#  - the experiment build cuda_portfolio-prof (hint-variants.sh
#    prof=-DCPK_RING_PROF=1: thread 0 of each consumer group of five
#    blocks prints the clock64 cycles of each phase of ring_k's
#    iterations) on softmax bf16 and fp32 and rmsnorm bf16 at 2^20 and
#    2^18 columns;
#  - Nsight Compute's warp states and scheduler on the default's ring_k
#    (softmax bf16 32x1048576);
#  - a lag of 4 steps (CPK_RING_L=4, the most six slots allow) against
#    the default's 2: the ring's 2^18 and 2^20 rows, default / l4 /
#    default, and every FUSED case through the ring at that lag under
#    --test-only.
#   BIN=DIR VAR=DIR bash scripts/capture/ring5-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring5-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
pv=$var/cuda_portfolio-prof
gpu_csv gpu-before.csv
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for c in "softmax bf16" "softmax fp32" "rmsnorm bf16"; do
    set -- $c
    bench_one prof "$pv" $1 $2 $sh CPK_NONE=1
  done
done
NCU_K=ring_k ncu_one ncu-ring-softmax-bf16-32x1048576 "$pf" softmax bf16 \
  32x1048576 SpeedOfLight WarpStateStats SchedulerStats
for sh in 32x1048576 256x262144; do
  for c in "softmax bf16" "softmax fp16" "softmax fp32" "rmsnorm bf16" \
    "rmsnorm fp16"; do
    set -- $c
    bench_one def1 "$pf" $1 $2 $sh CPK_NONE=1
    bench_one l4 "$pf" $1 $2 $sh CPK_RING_L=4
    bench_one def2 "$pf" $1 $2 $sh CPK_NONE=1
  done
done
run test-only-ringall-l4.txt 60 env CPK_SKEW_MIN=1 CPK_SKEW_RING=2 \
  CPK_RING_L=4 "$pf" --test-only --variant fused
finish
exit 0
