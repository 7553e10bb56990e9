#!/usr/bin/env bash
# v16c, FUSED's stream path (kernels/rowstream.cu) after v16b's hangs
# (docs/PERFORMANCE.md): its verification with every FUSED case it can take
# pushed through it (CPK_STREAM_MIN=1) and that set's smoke cases under
# memcheck and racecheck; Nsight Compute on softmax bf16 32x1048576 through
# it; each 2^18- and 2^20-wide benchmark case of its four ops, default path /
# stream path (CPK_STREAM_MIN=131073) / the experiment builds of VARIANTS
# ($VAR/cuda_portfolio-NAME, stream path on) / default again; then the
# profiling build ($VAR/cuda_portfolio-prof, -DCPK_STREAM_PROF=1: clock64
# per step of four blocks) on four cases:
#   BIN=DIR VAR=DIR VARIANTS="sl" bash scripts/capture/stream2-session.sh OUTDIR [BUDGET_S]
# The path is not in the tree (not taken): $pf is a build of fed92c9 with
# results/h200/bounds/stream-2026-11-30T1755/v16c.patch (v16c) or
# stream-2026-11-30T1803/v16d.patch (v16d) applied, the variants that
# build's rowstream.cu through hint-variants.sh.
set -u
out=${1:?usage: stream2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-360}
. "$(dirname "$0")/batch-lib.sh"
S=CPK_STREAM_MIN=131073
gpu_csv gpu-before.csv
VT_ENV=CPK_STREAM_MIN=1 VT_TLIM=90 VT_LIM=80 vtools streamall "$pf" memcheck \
  racecheck
NCU_K=strm_k NCU_ENV=$S ncu_one ncu-strm-softmax-bf16-32x1048576 "$pf" \
  softmax bf16 32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy \
  LaunchStats WarpStateStats SchedulerStats InstructionStats
for c in "softmax bf16 32x1048576" "softmax bf16 256x262144" \
  "rmsnorm fp32 256x262144" "row_sum bf16 32x1048576"; do
  set -- $c
  run "prof-$1-$2-$3.txt" 20 env $S "$var/cuda_portfolio-prof" --bench \
    --op $1 --dtype $2 --shape $3 --budget 0.2 --max-samples 10
done
ONE_BUDGET=${ONE_BUDGET:-0.3}
env_grid strm $S "softmax rmsnorm softmax_backward row_sum" "bf16 fp32 fp16" \
  "32x1048576 256x262144" ${VARIANTS:-}
finish
exit 0
