#!/usr/bin/env bash
# softmax's 128-thread 4-slot configuration built for 7 blocks per SM
# (cuda_portfolio-mb7: -DCPK_FUSED_SM_MB7=1) against the final binary, on
# the GPU machine (docs/PERFORMANCE.md, the final binary's counters):
#   hint-variants.sh .carry/var mb7="-DCPK_FUSED_SM_MB7=1"
#   bash scripts/capture/mb7-session.sh OUTDIR [BUDGET_S]
# The variant's softmax --test-only and memcheck on the softmax smoke set,
# then softmax fp16 and bf16 at 16384x4096 (the shape that configuration
# serves in the benchmark set): default, variant, default, variant, default.
set -u
out=${1:?usage: mb7-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only-softmax-mb7.txt 40 "$var/cuda_portfolio-mb7" --test-only --op softmax
run memcheck-softmax-mb7.txt 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$var/cuda_portfolio-mb7" --alloc exact --smoke --op softmax
run resource-usage-mb7.txt 20 cuobjdump --dump-resource-usage "$var/cuda_portfolio-mb7"
for i in 1 2 3; do
  for dt in fp16 bf16; do
    run "def-$dt-$i.txt" 15 "$pf" --bench --op softmax --dtype $dt --shape 16384x4096 --json "$out/def-$dt-$i.json"
  done
  [ $i -eq 3 ] && break
  for dt in fp16 bf16; do
    run "mb7-$dt-$i.txt" 15 "$var/cuda_portfolio-mb7" --bench --op softmax --dtype $dt --shape 16384x4096 --json "$out/mb7-$dt-$i.json"
  done
done
finish
exit 0
