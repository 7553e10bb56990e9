#!/usr/bin/env bash
# Short 16-bit rows on other FUSED configurations (kernels/rowfused.cu,
# CPK_FUSED_SHORT16; docs/PERFORMANCE.md, versions v12), with the two rules
# measured before and taken since (rmsnorm 16-bit 2^18 on the grid path with
# two blocks per SM; rmsnorm_bwd fp32 32768 on the wide path with 16 loads),
# in one lease. The variants are hint-variants.sh builds of the tree:
#   s23=-DCPK_FUSED_SHORT16=23 s31=-DCPK_FUSED_SHORT16=31
# $pf is the tree's default build. First the FUSED --test-only of each
# build, each variant's smoke set under memcheck (racecheck for the first)
# and the rerouted shapes under memcheck and racecheck, then each case
# default / variants / default (rmsnorm 16-bit 2^18: the default with the
# grid path off, CPK_FUSED_GRID=0, i.e. the wide path it had before, beside
# the default):
#   bash scripts/capture/short16-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: short16-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
vs=${VARIANTS:-s23 s31}
gpu_csv gpu-before.csv
run test-only-default.txt 90 "$pf" --test-only --variant fused
for v in $vs; do
  run "test-only-$v.txt" 90 "$var/cuda_portfolio-$v" --test-only --variant fused
  run "memcheck-smoke-$v.txt" 90 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$var/cuda_portfolio-$v" --alloc exact --smoke
done
run "racecheck-smoke-${vs%% *}.txt" 120 compute-sanitizer --tool racecheck \
  --error-exitcode 9 "$var/cuda_portfolio-${vs%% *}" --alloc exact --smoke \
  --variant fused
# the smoke set has no 16-bit row of 4097-32768 columns: the rerouted
# configurations' verification shapes, each variant, under memcheck and
# racecheck (every dtype, the plan's pick)
for v in $vs; do
  for sh in 64x1000 33x4097 70x24576; do
    for tool in memcheck racecheck; do
      run "$tool-softmax-$sh-$v.txt" 60 compute-sanitizer --tool $tool \
        --error-exitcode 9 "$var/cuda_portfolio-$v" --alloc exact \
        --op softmax --shape $sh
    done
  done
  run "memcheck-row_sum-64x1000-$v.txt" 60 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$var/cuda_portfolio-$v" --alloc exact --op row_sum \
    --shape 64x1000
done
ONE_RESERVE=15 ONE_BUDGET=0.3
case_abc() {
  local v pairs=()
  for v in $vs; do
    pairs+=("$v" "$var/cuda_portfolio-$v")
  done
  bench_abc "$1" "$2" "$3" "${pairs[@]}"
}
for dt in bf16 fp16; do
  for sh in 65536x1024 8192x8192 2048x32768 16384x4096; do
    case_abc softmax $dt $sh
  done
  case_abc row_sum $dt 65536x1024
done
for dt in bf16 fp16; do
  bench_one wide1 "$pf" rmsnorm $dt 256x262144 CPK_FUSED_GRID=0
  bench_one grid "$pf" rmsnorm $dt 256x262144 CPK_NONE=1
  bench_one wide2 "$pf" rmsnorm $dt 256x262144 CPK_FUSED_GRID=0
done
bench_one def "$pf" rmsnorm_backward fp32 2048x32768 CPK_NONE=1
finish
exit 0
