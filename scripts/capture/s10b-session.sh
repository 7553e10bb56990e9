#!/usr/bin/env bash
# The tenth session's second call (docs/PERFORMANCE.md, "tenth session"):
# rmsnorm_backward's row coefficient reordered (rb_coef) and the check of
# rows under atol, on the GPU machine. Run from the repository root with
# the new build extracted (scripts/capture/pack-build.sh) and the previous
# one carried as .carry/old.tar.xz.
#   bash scripts/capture/s10b-session.sh OUTDIR [SECONDS]
# 1. --test-only on every case (the new check runs on every extreme row-op
#    case; the kernels changed in three files);
# 2. the extreme rows dumped again, each row's error beside its size;
# 3. rmsnorm_backward's benchmark set, old and new builds in turn (ABAB):
#    the coefficient is one more rounding per row, none per element, so
#    the medians should not move;
# 4. the GPU ctest entries and ./repro --prebuilt all (inspect skipped).
set -u
out=${1:?usage: s10b-session.sh OUTDIR [SECONDS]}
budget=${2:-540}
BIN=build/linux/bin
. "$(dirname "$0")/batch-lib.sh"
pf=build/linux/bin/cuda_portfolio
export KERNEL_REQUIRE_GPU=1
mkdir -p /tmp/old && tar xJf .carry/old.tar.xz -C /tmp/old
old=/tmp/old/build/linux/bin/cuda_portfolio
gpu_csv gpu-before.csv
run test-only.txt "$(upto 240)" "$pf" --test-only
for dt in fp32 bf16; do
  rm -rf "/tmp/dump-$dt"
  run "dump-$dt.txt" "$(upto 60)" "$pf" --op rmsnorm_backward --dtype "$dt" --shape 64x1000 --extreme --dump "/tmp/dump-$dt"
done
run extreme-rows.txt 60 python3 "$(dirname "$0")/extreme-rows.py"
for i in 1 2; do
  run "bench-rb-old-$i.txt" "$(upto 60)" "$old" --bench --op rmsnorm_backward --json "$out/bench-rb-old-$i.json"
  run "bench-rb-new-$i.txt" "$(upto 60)" "$pf" --bench --op rmsnorm_backward --json "$out/bench-rb-new-$i.json"
done
run ctest-gpu.txt "$(upto 120)" ctest --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
if [ "$(left)" -gt 120 ]; then
  run repro-all.txt $(($(left) - 20)) ./repro --prebuilt all --skip inspect --out "$out/runs" --keep-going --select "--op rmsnorm_backward --dtype bf16"
  bundles_only "$out/runs"
fi
gpu_csv gpu-after.csv
tar -czf "$out.tar.gz" -C "$(dirname "$out")" "$(basename "$out")"
exit 0
