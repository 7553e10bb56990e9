#!/usr/bin/env bash
# The build with the ring on every rmsnorm row the skew path takes: its
# rmsnorm --test-only, the FUSED smoke set under memcheck, rmsnorm at 2^20
# and 2^18 in every dtype (the defaults), the GPU ctest entries.
#   BIN=DIR bash scripts/capture/ring9-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring9-session.sh OUTDIR [BUDGET_S]}
budget=${2:-100}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
run test-only-rmsnorm.txt 30 "$pf" --test-only --op rmsnorm
run memcheck-smoke.txt 30 compute-sanitizer --tool memcheck --error-exitcode 9 "$pf" --alloc exact --smoke
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for dt in fp32 bf16 fp16; do
    bench_one def "$pf" rmsnorm $dt $sh CPK_NONE=1
  done
done
run ctest-gpu.txt 30 ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
finish
exit 0
