#!/usr/bin/env bash
# What bounds the cases that still miss, on the final binary of v4/v7
# (docs/PERFORMANCE.md, "What bounds the cases that miss"), on the GPU
# machine, with the stripped binaries in BIN (default .carry/bin) and VAR:
#   hint-variants.sh .carry/var stplain="-DCPK_FUSED_ST_PLAIN=1"
#   bash scripts/capture/bounds7-session.sh OUTDIR [BUDGET_S]
# 1. Nsight Compute (clocks not locked) on one launch per benchmark case of
#    every row op in every dtype, and of the copy, as CSV (--page details);
# 2. plain stores everywhere (cuda_portfolio-stplain) against the default
#    for the ops whose stores stay streaming (softmax_backward; rmsnorm's
#    wide configurations): default, variant, default.
# Packs OUTDIR (without the .ncu-rep files) into OUTDIR.tar.gz.
set -u
out=${1:?usage: bounds7-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ncu_row_ops
for op in softmax_backward rmsnorm; do
  abc 40 def stplain "$var/cuda_portfolio-stplain" $op
done
finish
exit 0
