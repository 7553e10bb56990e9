#!/usr/bin/env bash
# The checks of a head build whose kernels changed after the last final run
# (v29b, docs/PERFORMANCE.md), one call, KERNEL_REQUIRE_GPU=1, the carried
# build (scripts/capture/pack-build.sh): the kernels' self-test, the
# resource table, the whole --test-only, the smoke set under memcheck,
# racecheck, initcheck and synccheck (--alloc exact), the GPU ctest
# entries, and rmsnorm_backward's benchmark cases in every dtype.
#   bash scripts/capture/headcheck-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: headcheck-session.sh OUTDIR [BUDGET_S]}
budget=${2:-280}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,power.limit,clocks_event_reasons.active --format=csv
run cpk_selftest.txt 60 "$bin/cpk_selftest"
run cuobjdump-resource-usage.txt 20 cuobjdump --dump-resource-usage "$pf"
run test-only.txt 170 "$pf" --test-only
for tool in memcheck racecheck initcheck synccheck; do
  run "$tool-smoke.txt" 60 compute-sanitizer --tool $tool --error-exitcode 9 \
    "$pf" --alloc exact --smoke
done
run ctest-gpu.txt 40 ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
run bench-rmsnorm_backward.txt "$(($(left) - 5))" "$pf" --bench --op rmsnorm_backward --json "$out/bench-rmsnorm_backward.json"
finish
exit 0
