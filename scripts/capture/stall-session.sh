#!/usr/bin/env bash
# Where rmsnorm_backward's warps wait (docs/PERFORMANCE.md, "v34a" and
# "What bounds the cases that miss"): one call on the final binary, Nsight
# Compute (clocks not locked) on one benchmark launch each of
# rmsnorm_backward bf16 at 8192x8192 (fused_k, a block a row), 2048x32768
# (fused_k, clusters of two blocks) and 256x262144 (skew_k), and of
# softmax_backward bf16 at 2048x32768 (the same bytes a row, at 0.95 of
# the copy ceiling) for contrast: the warp-state section and every
# per-reason stall ratio (smsp__average_warps_issue_stalled_*), as CSV.
#   BIN=DIR bash scripts/capture/stall-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: stall-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
export NCU_METRICS="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
stall() {
  NCU_K=$4 ncu_one "ncu-$1" "$pf" "$2" bf16 "$3" SpeedOfLight WarpStateStats \
    SchedulerStats
}
stall rmsbwd-8192 rmsnorm_backward 8192x8192 fused_k
stall rmsbwd-32768 rmsnorm_backward 2048x32768 fused_k
stall rmsbwd-262144 rmsnorm_backward 256x262144 skew_k
stall smbwd-32768 softmax_backward 2048x32768 fused_k
finish
exit 0
