#!/usr/bin/env bash
# The tenth session's checks of its host mends on the GPU machine, in one
# call (docs/PERFORMANCE.md, "tenth session"): run from the repository root
# with the build packed by scripts/capture/pack-build.sh extracted.
#   bash scripts/capture/s10-session.sh OUTDIR [SECONDS]
# 1. --test-only on every case: the determinism rerun now poisons with 0x55
#    (reason=unwritten), which no GPU had run;
# 2. the GPU ctest entries (test_bench_gpu.hot_hold: hot samples behind the
#    hold; the harness with NVML's violation counters);
# 3. benchmark sets that show the counters (matmul, where earlier runs saw
#    sw_power_cap; softmax bf16), and softmax bf16 hot;
# 4. rmsnorm_backward's extreme rows dumped (a review's finding: rows whose
#    outputs lie far below atol), with each row's error beside its size;
# 5. ./repro --prebuilt all (inspect skipped) on softmax bf16.
# OUTDIR is packed as OUTDIR.tar.gz beside it.
set -u
out=${1:?usage: s10-session.sh OUTDIR [SECONDS]}
budget=${2:-540}
BIN=build/linux/bin
. "$(dirname "$0")/batch-lib.sh"
pf=build/linux/bin/cuda_portfolio
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
run nvidia-smi-perf-before.txt 20 nvidia-smi -q -d PERFORMANCE
run test-only.txt "$(upto 240)" "$pf" --test-only
run ctest-gpu.txt "$(upto 120)" ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
run bench-matmul.txt "$(upto 120)" "$pf" --bench --op matmul --json "$out/bench-matmul.json"
run bench-softmax-bf16.txt "$(upto 60)" "$pf" --bench --op softmax --dtype bf16 --json "$out/bench-softmax-bf16.json"
run bench-softmax-bf16-hot.txt "$(upto 60)" "$pf" --bench --op softmax --dtype bf16 --hot --json "$out/bench-softmax-bf16-hot.json"
for dt in fp32 bf16; do
  rm -rf "/tmp/dump-$dt"
  run "dump-$dt.txt" "$(upto 60)" "$pf" --op rmsnorm_backward --dtype "$dt" --shape 64x1000 --extreme --dump "/tmp/dump-$dt"
done
run extreme-rows.txt 60 python3 "$(dirname "$0")/extreme-rows.py"
if [ "$(left)" -gt 120 ]; then
  run repro-all.txt $(($(left) - 20)) ./repro --prebuilt all --skip inspect --out "$out/runs" --keep-going --select "--op softmax --dtype bf16"
  bundles_only "$out/runs"
fi
run nvidia-smi-perf-after.txt 20 nvidia-smi -q -d PERFORMANCE
gpu_csv gpu-after.csv
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit 0
