#!/usr/bin/env bash
# One batched tuning session on the GPU machine (docs/PERFORMANCE.md): the
# binaries come stripped in BIN (default .carry/bin). Verifies everything
# first (--test-only, the kernels' self-test), then times OPS (default: the
# row ops, then matmul) with the plan chooser's picks, prints a table, and
# packs OUTDIR into OUTDIR.tar.gz (the device tool returns few files).
#   bash scripts/capture/perf-session.sh OUTDIR [BUDGET_S] [OPS...]
set -u
out=${1:?usage: perf-session.sh OUTDIR [BUDGET_S] [OPS...]}
budget=${2:-540}
shift 2 2>/dev/null || shift $#
ops=${*:-row_sum softmax softmax_backward rmsnorm rmsnorm_backward matmul}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only.txt "${TEST_S:-240}" "$pf" --test-only
run selftest.txt 150 "$bin/cpk_selftest"
for op in $ops; do
  run "bench-$op.txt" $(( $(left) - 20 )) "$pf" --bench --op "$op" --json "$out/bench-$op.json"
done
gpu_csv gpu-after.csv
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
cat "$log"
grep -hE '^(FAIL|SKIP)' "$out/test-only.txt" | head -30
grep -hE 'passed|failed|skipped' "$out/test-only.txt" | tail -3
grep -hE 'FAIL' "$out/selftest.txt" | head -20; tail -2 "$out/selftest.txt"
python3 scripts/capture/bench-table.py "$out"/bench-*.json
exit 0
