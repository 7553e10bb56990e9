#!/usr/bin/env bash
# matmul v4 (C through shared memory and TMA stores) against the v3
# register epilogue (CPK_MM_TMA_STORE=0, same binary), on the GPU machine,
# with the binaries in BIN (default .carry/bin):
#   bash scripts/capture/mm-epi-session.sh OUTDIR [BUDGET_S]
# Checks first (the self-test, --test-only matmul both ways, the sanitizer's
# four tools on the matmul smoke set), then the matmul benchmark set in
# alternation: v4, v3, v4, v3, v4 (ours and cuBLAS sampled in alternation
# within each run, the harness's default).
set -u
out=${1:?usage: mm-epi-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 90 "$bin/cpk_selftest"
run test-only-matmul.txt 60 "$pf" --test-only --op matmul
run test-only-matmul-v3.txt 60 env CPK_MM_TMA_STORE=0 "$pf" --test-only --op matmul
for tool in memcheck racecheck synccheck initcheck; do
  run "sanitize-$tool.txt" 60 compute-sanitizer --tool $tool --error-exitcode 9 \
    "$pf" --alloc exact --smoke --op matmul
done
run resource-usage.txt 30 cuobjdump --dump-resource-usage "$pf"
for i in 1 2 3; do
  run "bench-matmul-v4-$i.txt" 40 "$pf" --bench --op matmul --json "$out/bench-matmul-v4-$i.json"
  [ $i -eq 3 ] && break
  run "bench-matmul-v3-$i.txt" 40 env CPK_MM_TMA_STORE=0 "$pf" --bench --op matmul --json "$out/bench-matmul-v3-$i.json"
done
finish
exit 0
