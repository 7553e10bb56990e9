#!/usr/bin/env bash
# v32a, v32b (docs/PERFORMANCE.md): rmsnorm's register-only configurations
# (the rows of up to 8192 columns) load w in the write loop, after the
# row's reduction, from the L2; the variants take that round trip off the
# write loop: wsm2 (-DCPK_FUSED_RMS_WSM=2) copies w's slots into shared
# memory before the first row, as the configurations with shared-memory
# slots do since v8b; wreg (-DCPK_FUSED_RMS_WREG=1) loads them into
# registers with the row's own loads. One call: each variant's resource
# usage, its rmsnorm --test-only, its FUSED smoke set under memcheck,
# rmsnorm at edge shapes of the moved configurations under memcheck and
# racecheck, then def1 / wsm2 / wreg / def2 on the rows they move (every
# dtype at 1024-8192 columns; the 16-bit ones twice) and on one they leave
# (bf16 2048x32768), and Nsight Compute on bf16 8192x8192's row kernel
# of the default and wsm2.
#   BIN=DIR VAR=DIR bash scripts/capture/v32-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v32-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
for v in wsm2 wreg; do
  vb="$var/cuda_portfolio-$v"
  run cuobjdump-$v.txt 60 cuobjdump --dump-resource-usage "$vb"
  run test-only-$v.txt 60 "$vb" --test-only --op rmsnorm
  run memcheck-smoke-$v.txt 45 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$vb" --alloc exact --smoke --variant fused
  SAN_TAG=$v sanshapes "$vb" rmsnorm 300x1000 64x1024 33x4097 5x8192
done
export ONE_BUDGET=0.4
w2="$var/cuda_portfolio-wsm2"
wr="$var/cuda_portfolio-wreg"
for dt in bf16 fp16 fp32; do
  for sh in 65536x1024 16384x4096 8192x8192; do
    bench_abc rmsnorm $dt $sh wsm2 "$w2" wreg "$wr"
  done
done
bench_abc rmsnorm bf16 2048x32768 wsm2 "$w2" wreg "$wr"
for dt in bf16 fp16; do
  for sh in 65536x1024 16384x4096 8192x8192; do
    BA_SUF=b bench_abc rmsnorm $dt $sh wsm2 "$w2" wreg "$wr"
  done
done
if [ "$(left)" -gt 70 ]; then
  ncu_one ncu-def-rmsnorm-bf16-8192x8192 "$pf" rmsnorm bf16 8192x8192 \
    SpeedOfLight WarpStateStats SchedulerStats Occupancy
  ncu_one ncu-wsm2-rmsnorm-bf16-8192x8192 "$w2" rmsnorm bf16 8192x8192 \
    SpeedOfLight WarpStateStats SchedulerStats Occupancy
fi
finish
exit 0
