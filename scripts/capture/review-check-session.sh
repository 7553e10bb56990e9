#!/usr/bin/env bash
# A short check on the GPU machine after host-side review mends (no kernel
# change): with the binaries in BIN (default .carry/bin):
#   bash scripts/capture/review-check-session.sh OUTDIR [BUDGET_S]
# the kernels' self-test (its measure group drives the read flush and the
# read stream), the GPU harness tests, and the copy and row_sum benchmark
# sets (each flush), whose files record the read ceiling and launch floor.
# With CHECK_ALL=1 (host changes on the launchers' own path, e.g. their
# dtype dispatch), first `--test-only` (every launcher, variant and dtype),
# the smoke set under memcheck and the GPU ctest entries (KERNEL_REQUIRE_GPU=1,
# build/linux carried), within a budget of about 330 s.
set -u
out=${1:?usage: review-check-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
if [ "${CHECK_ALL:-0}" = 1 ]; then
  run test-only.txt 150 "$pf" --test-only
  run memcheck-smoke.txt 60 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$pf" --alloc exact --smoke
  run ctest-gpu.txt 90 env KERNEL_REQUIRE_GPU=1 ctest --test-dir \
    build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
fi
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
