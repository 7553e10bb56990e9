#!/usr/bin/env bash
# v47c (docs/PERFORMANCE.md), after v47b: the rolled loops were faster in
# Nsight Compute's launch (roll 74.2, roll2 71.2, roll4 72.0 us against
# the default's 78.7) and slower in every timed case (0.96-0.99x, either
# flush). Nsight Compute flushes the caches before a profiled launch by
# default (--cache-control all; perhaps the instruction caches too); the
# benchmark's samples follow hundreds of launches of the same kernel with
# only a memset between. Here the same stall counters on softmax bf16
# 2048x32768 with --cache-control none (the caches as the previous
# launches of the profiled run left them), for the build, roll and roll2.
#   BIN=DIR VAR=DIR bash scripts/capture/v47c-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v47c-session.sh OUTDIR [BUDGET_S]}
budget=${2:-120}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for b in def:$pf roll:$var/cuda_portfolio-roll roll2:$var/cuda_portfolio-roll2; do
  [ "$(left)" -gt 20 ] || continue
  NCU_XARGS='--cache-control none' ncu_stalls \
    "ncu-nocc-${b%%:*}-softmax-bf16-2048x32768" "${b#*:}" softmax bf16 \
    2048x32768
done
finish
exit 0
