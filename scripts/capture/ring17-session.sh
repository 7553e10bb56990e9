#!/usr/bin/env bash
# v26b's probe (docs/PERFORMANCE.md): where the ring's time goes, by
# taking its work away in steps. The variants (hint-variants.sh with
# SOURCES=kernels/rowskew.cu null1=-DCPK_RING_NULL=1,
# null2=-DCPK_RING_NULL=2) write wrong output on purpose, so the benchmark
# (which verifies first) cannot time them: each build's ring_k launches of
# one verification run are timed by Nsight Compute instead (clocks not
# locked, its default cache control: the caches flushed before each
# launch), the default build's beside them. And, timed by the benchmark,
# the copy at the byte counts of the ring's rows (2^25 and 2^26 elements
# of 16 bits and fp32), the write flush, and bf16 2^25 with the read flush.
#   BIN=DIR VAR=DIR bash scripts/capture/ring17-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring17-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
ONE_BUDGET=0.25
for dt in bf16 fp32; do
  for n in 1x33554432 1x67108864; do
    bench_one copy "$pf" copy $dt $n CPK_NONE=1
  done
done
run copyread-copy-bf16-1x33554432.txt 20 "$pf" --bench --op copy \
  --dtype bf16 --shape 1x33554432 --budget 0.25 --flush read \
  --json "$out/copyread-copy-bf16-1x33554432.json"
for c in "softmax bf16 32x1048576" "rmsnorm bf16 32x1048576" \
  "softmax bf16 256x262144" "softmax fp32 32x1048576"; do
  set -- $c
  for b in def:"$pf" null1:"$var/cuda_portfolio-null1" \
    null2:"$var/cuda_portfolio-null2"; do
    run "ncu-${b%%:*}-$1-$2-$3.txt" 40 ncu --clock-control none \
      -k regex:ring_k --launch-count 3 --section SpeedOfLight \
      --section MemoryWorkloadAnalysis "${b#*:}" --op $1 --dtype $2 --shape $3
  done
done
run ncu-copy-bf16-1x33554432.txt 40 ncu --clock-control none \
  -k regex:copy_k --launch-count 3 --section SpeedOfLight \
  --section MemoryWorkloadAnalysis "$pf" --op copy --dtype bf16 \
  --shape 1x33554432
gpu_csv gpu-after-bench.csv
finish
exit 0
