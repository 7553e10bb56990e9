#!/usr/bin/env bash
# What bounds the benchmark cases that miss the copy ceiling
# (docs/PERFORMANCE.md, "What bounds the cases that miss"), on the GPU
# machine, with the stripped binary in BIN (default .carry/bin):
#   bash scripts/capture/bounds-session.sh OUTDIR [BUDGET_S]
# 1. the vector copy timed at the byte counts of the row ops (2^26 and 2^25
#    elements), against the same run's 2^28-element ceiling;
# 2. softmax and softmax_backward with CPK_FUSED_PERSIST=0 beside the
#    default (the prefetching persistent clusters of v4 against v3);
# 3. Nsight Compute (clocks not locked) on one launch per benchmark case of
#    each selection, exported as CSV (--page details); the reports stay here.
# Packs OUTDIR (without the .ncu-rep files) into OUTDIR.tar.gz.
set -u
out=${1:?usage: bounds-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for dt in fp32 bf16; do
  for n in 67108864 33554432; do
    run "copy-$dt-$n.txt" 30 "$pf" --op copy --variant vector --dtype "$dt" --shape "1x$n" --json "$out/copy-$dt-$n.json"
  done
done
for op in softmax softmax_backward; do
  for s in 256x262144 32x1048576; do
    run "persist-$op-$s.txt" 30 "$pf" --bench --op "$op" --shape "$s" --json "$out/persist-$op-$s.json"
    run "v3-$op-$s.txt" 30 env CPK_FUSED_PERSIST=0 "$pf" --bench --op "$op" --shape "$s" --json "$out/v3-$op-$s.json"
  done
done
for sel in "--op rmsnorm_backward --dtype bf16" "--op row_sum --dtype bf16" "--op rmsnorm --dtype fp32" "--op softmax_backward --dtype fp32" "--op matmul --dtype bf16" "--op copy --dtype bf16"; do
  ncu_bench 75 $sel
done
finish
python3 scripts/capture/bench-table.py "$out"/copy-*.json "$out"/persist-*.json "$out"/v3-*.json
exit 0
