#!/usr/bin/env bash
# v16, FUSED's stream path (kernels/rowstream.cu, strm_k) on the GPU machine
# (docs/PERFORMANCE.md): its verification with every FUSED case it can take
# pushed through it (CPK_STREAM_MIN=1: rows of every width, chunks of one
# vector to whole stages, partial last vectors, every round count), that
# set's smoke cases under memcheck and racecheck, Nsight Compute on two of
# its benchmark launches, then each 2^18- and 2^20-wide benchmark case of
# the four ops it runs, default path / stream path (CPK_STREAM_MIN=131073)
# / default again, one lease; the experiment builds $VAR/cuda_portfolio-NAME
# of VARIANTS (e.g. mb4 = -DCPK_STREAM_MB=4 -DCPK_STREAM_NV=3), stream path
# on, between the two:
#   BIN=DIR VAR=DIR VARIANTS="mb4 mb2" bash scripts/capture/stream-session.sh OUTDIR [BUDGET_S]
# The path is not in the tree (v16a-v16d, none taken): $pf is `cmake --build
# build/linux` of fed92c9 with results/h200/bounds/stream-2026-11-30T1745/
# v16b.patch applied (v16b; v16a's source, run by this script with its
# variants on rmsnorm only, was not kept), the variants that build's
# rowstream.cu through hint-variants.sh (SOURCES=kernels/rowstream.cu).
set -u
out=${1:?usage: stream-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
S=CPK_STREAM_MIN=131073
gpu_csv gpu-before.csv
VT_ENV=CPK_STREAM_MIN=1 VT_TLIM=90 VT_LIM=80 vtools streamall "$pf" memcheck \
  racecheck
for c in "softmax bf16 32x1048576" "rmsnorm fp32 256x262144"; do
  set -- $c
  NCU_K=strm_k NCU_ENV=$S ncu_one "ncu-strm-$1-$2-$3" "$pf" $1 $2 $3 \
    SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats \
    SchedulerStats
done
ONE_BUDGET=${ONE_BUDGET:-0.3}
env_grid strm $S "softmax rmsnorm softmax_backward row_sum" "bf16 fp32 fp16" \
  "32x1048576 256x262144" ${VARIANTS:-}
finish
exit 0
