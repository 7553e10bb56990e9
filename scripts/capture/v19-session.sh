#!/usr/bin/env bash
# v19a (docs/PERFORMANCE.md; measured, not taken): fused_k's
# rmsnorm_backward with its two row sums merged across threads as plain
# sums (cuda_portfolio-plain: -DCPK_RMSBWD_PLAIN=1, in $var) against the
# build's compensated pairs (the macro was in the tree at 9756320 only; its
# patch is with the evidence: results/h200/bounds/v19-2026-11-30T2304/
# v19a.patch.gz).
# One lease: the variant's FUSED --test-only and its FUSED smoke set under
# memcheck and racecheck; rmsnorm_backward at the four on-chip standard
# shapes in every dtype, def1 / plain / def2, twice (the second pass's
# files suffixed b); Nsight Compute (instructions, issue) on fused_k of
# each at bf16 8192x8192.
#   BIN=DIR VAR=DIR bash scripts/capture/v19-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v19-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-plain
gpu_csv gpu-before.csv
vtools plain "$v" memcheck racecheck
ONE_BUDGET=0.3
for pass in a b; do
  for sh in 65536x1024 16384x4096 8192x8192 2048x32768; do
    for dt in bf16 fp16 fp32; do
      BA_SUF=$pass bench_abc rmsnorm_backward $dt $sh plain "$v"
    done
  done
done
for b in def plain; do
  bb=$pf
  [ $b = plain ] && bb=$v
  ncu_one ncu-$b-rmsnorm_backward-bf16-8192x8192 "$bb" rmsnorm_backward \
    bf16 8192x8192 SpeedOfLight InstructionStats SchedulerStats \
    WarpStateStats LaunchStats
done
finish
exit 0
