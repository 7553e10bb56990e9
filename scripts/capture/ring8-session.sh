#!/usr/bin/env bash
# After v24c (docs/PERFORMANCE.md), its build (the ring's rmsnorm with w by
# a bulk copy): fp32 rmsnorm 32x1048576 (128 segments, skew_k by default)
# default / the ring (CPK_SKEW_RING=1) / default; the whole --test-only,
# the GPU ctest entries, and the standard benchmark set (write flush).
#   BIN=DIR bash scripts/capture/ring8-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring8-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit,persistence_mode,clocks_event_reasons.active --format=csv
ONE_BUDGET=0.3
for i in 1 2; do
  bench_one def$i "$pf" rmsnorm fp32 32x1048576 CPK_NONE=1
  bench_one ring$i "$pf" rmsnorm fp32 32x1048576 CPK_SKEW_RING=1
done
bench_one def3 "$pf" rmsnorm fp32 32x1048576 CPK_NONE=1
run test-only.txt 130 "$pf" --test-only
run ctest-gpu.txt 40 ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
run bench-all.txt $(($(left) - 10)) "$pf" --bench --json "$out/bench-all.json"
finish
exit 0
