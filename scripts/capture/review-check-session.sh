#!/usr/bin/env bash
# A short check on the GPU machine after host-side review mends (no kernel
# change): with the binaries in BIN (default .carry/bin):
#   bash scripts/capture/review-check-session.sh OUTDIR [BUDGET_S]
# the kernels' self-test (its measure group drives the read flush and the
# read stream), the GPU harness tests, and the copy and row_sum benchmark
# sets (each flush), whose files record the read ceiling and launch floor.
set -u
out=${1:?usage: review-check-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 60 "$bin/cpk_selftest"
mkdir -p build/linux/tests/bench/tmp-test_bench_gpu
for t in run_one_case run_read_flush run_peer_interleaved run_peer_sequential; do
  run "test_bench_gpu-$t.txt" 30 "$bin/test_bench_gpu" $t
done
for f in write read; do
  run "bench-$f.txt" 40 "$pf" --bench --op row_sum --flush $f --json "$out/bench-row_sum-$f.json"
done
finish
exit 0
