#!/usr/bin/env bash
# v6b's second build (rmsnorm_bwd's 256-thread warp configuration back to two
# blocks per SM; rmsnorm's squares by fma, one compensated addition per row)
# against the previous build, as lean-session.sh, for rmsnorm_backward and
# rmsnorm:
#   bash scripts/capture/lean2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: lean2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 120 "$bin/cpk_selftest"
for op in rmsnorm rmsnorm_backward; do
  run "test-only-$op.txt" 60 "$pf" --test-only --op $op
done
run resource-usage.txt 30 cuobjdump --dump-resource-usage "$pf"
for op in rmsnorm_backward rmsnorm; do
  sel="--bench --op $op"
  run "bench-$op-new-1.txt" 50 "$pf" $sel --json "$out/bench-$op-new-1.json"
  run "bench-$op-old.txt" 50 env CPK_FUSED_PIPE=0 "$var/cuda_portfolio-pipe" $sel --json "$out/bench-$op-old.json"
  run "bench-$op-new-2.txt" 50 "$pf" $sel --json "$out/bench-$op-new-2.json"
done
finish
exit 0
