#!/usr/bin/env bash
# Nsight Compute on the grid path (grid_k, docs/PERFORMANCE.md "What
# bounds"): the final binary's benchmark cases at 256x262144 and 32x1048576
# with the grid path forced on every op (CPK_GRID_MIN=131073), the sections
# of batch-lib.sh's ncu_bench (clocks not locked):
#   bash scripts/capture/gridncu-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: gridncu-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export CPK_GRID_MIN=131073
gpu_csv gpu-before.csv
for c in ${CASES:-"rmsnorm bf16" "softmax bf16" "row_sum bf16" "rmsnorm_backward fp32"}; do
  set -- $c
  [ "$(left)" -gt 40 ] || break
  ncu_bench 40 --op $1 --dtype $2 --shape 256x262144
done
finish
exit 0
