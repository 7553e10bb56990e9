#!/usr/bin/env bash
# Nsight Compute (clocks not locked) on one launch per benchmark case of
# every row op in every dtype, and of the copy, on the final binary of v8
# (docs/PERFORMANCE.md, "The final binary's counters"), on the GPU machine,
# with the stripped binary in BIN (default .carry/bin):
#   bash scripts/capture/bounds8-session.sh OUTDIR [BUDGET_S]
# As bounds7-session.sh's first part. Packs OUTDIR (without the .ncu-rep
# files) into OUTDIR.tar.gz.
set -u
out=${1:?usage: bounds8-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ncu_row_ops
finish
exit 0
