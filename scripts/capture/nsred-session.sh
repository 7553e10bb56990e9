#!/usr/bin/env bash
# After v15's final run: why v15a's shorter block-stage butterfly lost
# 0.7-1.5 % on the 32768-wide 16-bit softmax rows, whose configuration has
# shared-memory slots (docs/PERFORMANCE.md, versions v15a). Nsight Compute
# (instruction, warp-state, speed-of-light, memory and scheduler sections)
# on the fused_k launches of softmax and rmsnorm bf16 2048x32768 of the v15
# final binary ($pf: those kernels keep the 5 levels) and of v15a's
# variant build ($VAR/cuda_portfolio-v15, as measured in
# bounds/v15-2026-11-30T1544: the shorter butterfly in every configuration),
# then the two cases timed default / variant / variant / default:
#   BIN=DIR VAR=DIR bash scripts/capture/nsred-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: nsred-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-v15
gpu_csv gpu-before.csv
for op in softmax rmsnorm; do
  for b in def:"$pf" v15:"$v"; do
    ncu_one "ncu-$op-${b%%:*}" "${b#*:}" $op bf16 2048x32768 \
      InstructionStats WarpStateStats SpeedOfLight MemoryWorkloadAnalysis \
      SchedulerStats
  done
done
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid softmax "bf16 fp16" "2048x32768" v15 "$v" v15b "$v"
abc_grid rmsnorm "bf16" "2048x32768" v15 "$v" v15b "$v"
finish
exit 0
