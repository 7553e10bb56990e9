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
stall() {
  local name=$1 op=$2 sh=$3 k=$4
  rm -f /tmp/ncu-stall.ncu-rep
  run "ncu-$name.txt" 60 ncu --profile-from-start off --clock-control none \
    -k "regex:$k" --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio" \
    -o /tmp/ncu-stall -f "$pf" --profile-range --bench --op "$op" \
    --dtype bf16 --shape "$sh" --budget 0.3 --min-samples 3 \
    --max-samples 30 --json /tmp/ncu-stall.json
  if [ -f /tmp/ncu-stall.ncu-rep ]; then
    ncu -i /tmp/ncu-stall.ncu-rep --csv --page raw >"$out/ncu-$name-raw.csv" 2>&1
    ncu -i /tmp/ncu-stall.ncu-rep --csv --page details >"$out/ncu-$name-details.csv" 2>&1
  fi
}
stall rmsbwd-8192 rmsnorm_backward 8192x8192 fused_k
stall rmsbwd-32768 rmsnorm_backward 2048x32768 fused_k
stall rmsbwd-262144 rmsnorm_backward 256x262144 skew_k
stall smbwd-32768 softmax_backward 2048x32768 fused_k
finish
exit 0
