#!/usr/bin/env bash
# One batched evidence session on the GPU machine (run from the repository
# root with build/linux carried, cpk_selftest built in it; see
# docs/VALIDATION.md and docs/PROFILING.md):
#   bash scripts/capture/h200-evidence.sh OUTDIR [SECONDS] [SELECT]
# Runs, in priority order, inside SECONDS of wall time (default 560):
#   1. the GPU's state (nvidia-smi), the kernels' own self-test,
#      cuobjdump --dump-resource-usage of cuda_portfolio (a test fixture)
#      and ./repro --prebuilt doctor (every stage's environment check);
#   2. ./repro --prebuilt all (every stage but inspect, which the build
#      machine runs: it recompiles every kernel), archived and bundled, with
#      KERNEL_REQUIRE_GPU=1, --select SELECT for the time and profile stages
#      and --profile-set bench (Nsight Compute on the benchmark shapes);
#   3. the full benchmark set, cuda_portfolio --bench --json bench-all.json,
#      then the same with the read flush (--flush read: bench-all-read.json);
#   4. the GPU ctest entries with KERNEL_REQUIRE_GPU=1 (--test-only itself
#      already ran in the test stage of step 2, the self-test in step 1);
#   5. two back-to-back timed runs of one case set (softmax bf16);
#   6. PyTorch's figures side by side (.carry/torch_baseline.py), if present.
# Each later step gets only the time that is left (BENCH_RESERVE seconds,
# default 390, are kept from repro for the steps after it, READ_RESERVE,
# default 160, from the benchmark set for the read-flush set, TAIL_RESERVE,
# default 60, from the read-flush set; REPRO_SKIP, default inspect, is
# repro's --skip list). STEPS (default "check repro bench tail") picks the
# step groups, for a batch split over two calls of the device tool:
# check = step 1, repro = 2, bench = 3, tail = 4-6 (e.g. STEPS="check repro"
# then STEPS=bench\ tail; the reserves apply only within one call); read
# = the read-flush set of step 3 alone (where a call of the same build
# has run the write-flush set).
# Everything lands in OUTDIR; COMMANDS.txt records every command, its exit
# code and duration. repro's run folder is removed once its bundle passes
# `repro verify` (KEEP_RUN_DIRS=1 keeps it), so OUTDIR fits the transfer.
# OUTDIR is then packed whole as OUTDIR.tar.gz beside it: the device tool
# brings back at most eight files a call, so put OUTDIR outside $OUT and
# copy that one archive there (v50's first two calls, with OUTDIR in
# $OUT, lost their bundle and logs: results/h200/bounds/v50-*).
set -u
out=${1:?usage: h200-evidence.sh OUTDIR [SECONDS] [SELECT]}
budget=${2:-560}
select=${3:---dtype bf16}
steps=" ${STEPS:-check repro bench tail} "
want() { case "$steps" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
run nvidia-smi-q-before.txt 20 nvidia-smi -q
run gpu-before.csv 20 nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,temperature.gpu,power.draw,power.limit,persistence_mode,clocks_event_reasons.active --format=csv
if want check; then
  # cpk_selftest is built with the rest (a carried build older than
  # 2026-12-07 built it only as its own target)
  if [ -x build/linux/bin/cpk_selftest ]; then
    run cpk_selftest.txt 60 build/linux/bin/cpk_selftest
  else
    printf 'cpk_selftest.txt\tnot run: build/linux/bin/cpk_selftest missing (cmake --build build/linux --target cpk_selftest, then carry the build)\n' >>"$log"
  fi
  run cuobjdump_resource_usage.txt 30 cuobjdump --dump-resource-usage build/linux/bin/cuda_portfolio
  # every stage's environment check as the GPU machine answers it (no
  # stage runs): the tools found, the counter permission, the allocator
  run repro-doctor.txt 30 ./repro --prebuilt doctor
fi
if want repro; then
  run repro-all.txt $(($(left) - ${BENCH_RESERVE:-390})) ./repro --prebuilt all --skip "${REPRO_SKIP:-inspect}" --profile-set bench --out "$out/runs" --keep-going --select "$select"
  # The run folder beside its bundle holds the same files unpacked (57 MB
  # with Nsight Compute's report, over what the device tool brings back):
  # once the bundle verifies, only the bundle stays (KEEP_RUN_DIRS=1 keeps
  # both).
  if [ "${KEEP_RUN_DIRS:-0}" != 1 ]; then
    bundles_only "$out/runs"
  fi
fi
if want bench; then
  # The full benchmark set, uninstrumented (the repro run above timed only
  # SELECT): the clean JSON of the final run.
  run bench-all.txt $(($(left) - ${READ_RESERVE:-160} - ${TAIL_RESERVE:-60})) build/linux/bin/cuda_portfolio --bench --json "$out/bench-all.json"
fi
if want bench || want read; then
  # The same set with the L2 flushed by reading (docs/BENCHMARKING.md, "The
  # two flushes"): the flush's own write-back out of the timed interval.
  run bench-all-read.txt $(($(left) - ${TAIL_RESERVE:-60})) build/linux/bin/cuda_portfolio --bench --flush read --json "$out/bench-all-read.json"
fi
if want tail; then
  # gpu.test_only and gpu.kernels_selftest are steps 2 and 1
  run ctest-gpu.txt $(($(left) - 25)) ctest --test-dir build/linux/tests -L gpu -E 'gpu\.(test_only|kernels_selftest)' --output-on-failure
  for i in 1 2; do
    run b2b-$i.txt $(( $(left) > 70 ? 30 : 0 )) build/linux/bin/cuda_portfolio --bench --op softmax --dtype bf16 --json "$out/b2b-$i.json"
  done
  if [ -f .carry/torch_baseline.py ]; then
    run torch_baseline.txt $(($(left) - 15)) env PYTHONUNBUFFERED=1 python3 .carry/torch_baseline.py
  fi
fi
run gpu-after.csv 10 nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit 0
