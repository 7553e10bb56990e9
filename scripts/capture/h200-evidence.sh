#!/usr/bin/env bash
# One batched evidence session on the GPU machine (run from the repository
# root with build/linux carried; see docs/VALIDATION.md and docs/PROFILING.md):
#   bash scripts/capture/h200-evidence.sh OUTDIR [SECONDS] [SELECT]
# Runs, in priority order, inside SECONDS of wall time (default 560):
#   1. the GPU's state (nvidia-smi), the kernels' own self-test, and
#      cuobjdump --dump-resource-usage of cuda_portfolio (a test fixture);
#   2. ./repro --prebuilt all (every stage, archived and bundled), with
#      KERNEL_REQUIRE_GPU=1 and --select SELECT for the time/profile stages;
#   3. three back-to-back timed runs of one case set (softmax bf16);
#   4. the GPU ctest entries with KERNEL_REQUIRE_GPU=1 (--test-only itself
#      already ran in the test stage of step 2);
#   5. PyTorch's figures side by side (.carry/torch_baseline.py), if present.
# Each later step gets only the time that is left. Everything lands in
# OUTDIR; COMMANDS.txt records every command, its exit code and duration.
set -u
out=${1:?usage: h200-evidence.sh OUTDIR [SECONDS] [SELECT]}
budget=${2:-560}
select=${3:---dtype bf16}
mkdir -p "$out"
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
log="$out/COMMANDS.txt"
: >"$log"
run() { # run NAME TIMEOUT CMD...: stdout+stderr -> OUTDIR/NAME
  local name=$1 lim=$2; shift 2
  local s=$(date +%s)
  if [ "$lim" -le 5 ]; then
    printf '%s\tnot run: no time left\t%s\n' "$name" "$*" >>"$log"; return
  fi
  timeout -s INT -k 10 "$lim" "$@" >"$out/$name" 2>&1
  printf '%s\trc=%d\t%ds\t%s\n' "$name" "$?" "$(($(date +%s) - s))" "$*" >>"$log"
}
export KERNEL_REQUIRE_GPU=1
run nvidia-smi-q-before.txt 20 nvidia-smi -q
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit,persistence_mode,clocks_event_reasons.active --format=csv
run cpk_selftest.txt 60 build/linux/bin/cpk_selftest
run cuobjdump_resource_usage.txt 30 cuobjdump --dump-resource-usage build/linux/bin/cuda_portfolio
run repro-all.txt $(($(left) - 200)) ./repro --prebuilt all --out "$out/runs" --keep-going --select "$select"
for i in 1 2 3; do
  run b2b-$i.txt $(( $(left) > 150 ? 45 : 0 )) build/linux/bin/cuda_portfolio --bench --op softmax --dtype bf16 --json "$out/b2b-$i.json"
done
run ctest-gpu.txt $(($(left) - 60)) ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
if [ -f .carry/torch_baseline.py ]; then
  run torch_baseline.txt $(($(left) - 15)) env PYTHONUNBUFFERED=1 python3 .carry/torch_baseline.py
fi
run gpu-after.csv 10 nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
exit 0
