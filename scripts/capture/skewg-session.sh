#!/usr/bin/env bash
# After v20's final run: the skew path (kernels/rowskew.cu) on a grid of 7
# blocks (CPK_SKEW_G=7), so that rows of more segments than the grid
# straddle its steps and rmsnorm reads w from the L2 (the branch no shape
# takes on the H200's 264 resident blocks); and the head's own
# --test-only. One call:
#  - every FUSED case of softmax, softmax_backward and rmsnorm through the
#    skew path on 7 blocks (CPK_SKEW_MIN=1 CPK_SKEW_G=7) under --test-only
#    and its FUSED smoke set under memcheck and racecheck;
#  - those three ops' --test-only (every variant, the plan's picks) on 7
#    blocks: the set's wide rows (131080-1048577 columns) on the skew path;
#  - the build's --test-only.
#   BIN=DIR bash scripts/capture/skewg-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skewg-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_G=7" vtools skewg7 "$pf" memcheck racecheck
for op in softmax softmax_backward rmsnorm; do
  run test-only-g7-$op.txt 60 env CPK_SKEW_G=7 "$pf" --test-only --op $op
done
run test-only-default.txt 150 "$pf" --test-only
finish
exit 0
