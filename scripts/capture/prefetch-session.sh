#!/usr/bin/env bash
# The tuning session of the persistent, prefetching FUSED grids
# (docs/PERFORMANCE.md, "v4"): on the GPU machine, with the stripped
# binaries in BIN (default .carry/bin):
#   bash scripts/capture/prefetch-session.sh OUTDIR [BUDGET_S]
# 1. verification: --test-only, the kernels' self-test, and memcheck /
#    racecheck over FUSED cases whose rows outnumber the resident groups
#    (so the prefetch path runs);
# 2. every row op's benchmark set twice in a row: the default (persistent
#    grids, prefetch) and CPK_FUSED_PERSIST=0 (one group per row: v3);
# 3. FUSED forced where the plan chooser picks SPLIT or BLOCK (2^20-wide
#    rows, rmsnorm_backward at 262144);
# 4. the vector copy at the byte counts of the row ops (what a plain copy
#    reaches at that size, against the 2^28-element ceiling);
# 5. Nsight Compute counters (clocks not locked) of one profiled launch per
#    benchmark case of a selection (--profile-range), exported as CSV.
# Packs OUTDIR into OUTDIR.tar.gz.
# As run on 2026-11-29 (results/h200/history/tuning-2026-11-29/v4-prefetch-all)
# the binary's --bench still ignored --shape: the force-* runs timed every
# standard shape (the 2^20 and 2^18 lines are the ones step 3 is for) and the
# copy runs timed 2^28 elements (not kept; bounds-session.sh has the copy at
# the row ops' sizes). --bench --shape now keeps only that standard shape,
# and step 4 uses the plain selection (--shape with --json).
set -u
out=${1:?usage: prefetch-session.sh OUTDIR [BUDGET_S]}
budget=${2:-570}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only.txt 120 "$pf" --test-only
run selftest.txt 60 "$bin/cpk_selftest"
for tool in memcheck racecheck; do
  for shape in 700x4096 300x32768 40x262144; do
    run "san-$tool-$shape.txt" 45 compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$pf" --variant fused --shape "$shape"
  done
done
for op in row_sum softmax softmax_backward rmsnorm rmsnorm_backward; do
  run "bench-$op.txt" 60 "$pf" --bench --op "$op" --json "$out/bench-$op.json"
  run "bench-$op-v3.txt" 60 env CPK_FUSED_PERSIST=0 "$pf" --bench --op "$op" --json "$out/bench-$op-v3.json"
done
for op in row_sum softmax softmax_backward rmsnorm; do
  run "force-$op.txt" 40 "$pf" --bench --op "$op" --variant fused --shape 32x1048576 --json "$out/force-$op.json"
done
run force-rmsnorm_backward.txt 40 "$pf" --bench --op rmsnorm_backward --variant fused --shape 256x262144 --json "$out/force-rmsnorm_backward.json"
for dt in fp32 bf16; do
  for n in 67108864 33554432; do
    run "copy-$dt-$n.txt" 30 "$pf" --op copy --variant vector --dtype "$dt" --shape "1x$n" --json "$out/copy-$dt-$n.json"
  done
done
for sel in "--op softmax --dtype bf16" "--op rmsnorm --dtype fp32" "--op rmsnorm_backward --dtype bf16" "--op row_sum --dtype bf16" "--op matmul --dtype bf16" "--op copy --dtype bf16"; do
  ncu_bench $(( $(left) - 15 )) $sel
done
finish
zcat "$out/test-only.txt.gz" | grep -hE '^(FAIL)' | head -20
zcat "$out/test-only.txt.gz" | grep -hE 'passed|failed|skipped' | tail -2
zcat "$out/selftest.txt.gz" | grep -hE 'FAIL' | head; zcat "$out/selftest.txt.gz" | tail -1
for f in "$out"/san-*.txt.gz; do echo "$f: $(zcat "$f" | grep -E 'ERROR SUMMARY|passed|failed' | tr '\n' ' ')"; done
python3 scripts/capture/bench-table.py "$out"/bench-*.json "$out"/force-*.json "$out"/copy-*.json
exit 0
