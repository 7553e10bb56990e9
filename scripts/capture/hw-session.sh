#!/usr/bin/env bash
# softmax and rmsnorm on the 256-thread clusters twice as large (two blocks
# per SM) for the 2^18-wide rows (cuda_portfolio-hw: -DCPK_FUSED_HALF_WIDE=1)
# against the final binary of v8, on the GPU machine (docs/PERFORMANCE.md):
#   hint-variants.sh .carry/var hw=-DCPK_FUSED_HALF_WIDE=1
#   bash scripts/capture/hw-session.sh OUTDIR [BUDGET_S]
# The variant's softmax and rmsnorm --test-only and smoke sets under
# memcheck, its resource usage, then softmax and rmsnorm at 256x262144:
# default, variant, default, variant, default.
set -u
out=${1:?usage: hw-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for op in softmax rmsnorm; do
  run "test-only-$op-hw.txt" 40 "$var/cuda_portfolio-hw" --test-only --op $op
  run "memcheck-$op-hw.txt" 30 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$var/cuda_portfolio-hw" --alloc exact --smoke --op $op
done
run resource-usage-hw.txt 20 cuobjdump --dump-resource-usage "$var/cuda_portfolio-hw"
sel="--bench --shape 256x262144"
for i in 1 2 3; do
  for op in softmax rmsnorm; do
    run "def-$op-$i.txt" 30 "$pf" $sel --op $op --json "$out/def-$op-$i.json"
  done
  [ $i -eq 3 ] && break
  for op in softmax rmsnorm; do
    run "hw-$op-$i.txt" 30 "$var/cuda_portfolio-hw" $sel --op $op --json "$out/hw-$op-$i.json"
  done
done
finish
exit 0
