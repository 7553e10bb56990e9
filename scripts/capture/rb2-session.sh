#!/usr/bin/env bash
# v27a (docs/PERFORMANCE.md): rmsnorm_bwd's one-block-an-SM configurations
# on two (or four) blocks an SM in clusters (kernels/rowfused.cu,
# CPK_FUSED_RB2; the variant rb2, hint-variants.sh rb2=-DCPK_FUSED_RB2=1),
# against the default; and the copy op's new peer (cudaMemcpyAsync at the
# case's size) at the byte counts of the benchmark rows. One call:
#  - cpk_selftest of the default build (carried beside it);
#  - rb2's rmsnorm_backward --test-only (every dtype and shape of the
#    verification set, the new configurations where they take a row), its
#    FUSED smoke set under memcheck and racecheck, and rows that land on
#    each new configuration under memcheck and racecheck;
#  - rmsnorm_backward at 8192x8192 and 2048x32768 (the rows moved) and
#    16384x4096 (a control, unmoved) in every dtype: def1 / rb2 / def2,
#    twice;
#  - Nsight Compute on bf16 2048x32768's fused_k, default and rb2;
#  - the copy with its peer at 2^25-2^28 elements of bf16 and fp32.
#   BIN=DIR VAR=DIR bash scripts/capture/rb2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: rb2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
if [ -x "$bin/cpk_selftest" ]; then
  run cpk_selftest.txt 60 "$bin/cpk_selftest"
fi
rb="$var/cuda_portfolio-rb2"
run test-only-rb2-rmsbwd.txt 60 "$rb" --test-only --op rmsnorm_backward
VT_TLIM=60 VT_LIM=60 vtools rb2 "$rb" memcheck racecheck
sanshapes "$rb" rmsnorm_backward 5x8000 4x12000 3x20000
ONE_BUDGET=0.25
for pass in 1 2; do
  for sh in 8192x8192 2048x32768 16384x4096; do
    for dt in bf16 fp16 fp32; do
      BA_SUF=-p$pass bench_abc rmsnorm_backward $dt $sh rb2 "$rb"
    done
  done
done
NCU_K=fused_k ncu_one ncu-def-rmsbwd-bf16-2048x32768 "$pf" rmsnorm_backward \
  bf16 2048x32768 SpeedOfLight Occupancy WarpStateStats SchedulerStats
NCU_K=fused_k ncu_one ncu-rb2-rmsbwd-bf16-2048x32768 "$rb" rmsnorm_backward \
  bf16 2048x32768 SpeedOfLight Occupancy WarpStateStats SchedulerStats
for dt in bf16 fp32; do
  for n in 33554432 67108864 134217728 268435456; do
    run copy-peer-$dt-$n.txt 30 "$pf" --op copy --dtype $dt \
      --shape 1x$n --budget 0.5 --json "$out/copy-peer-$dt-$n.json"
  done
done
gpu_csv gpu-after-bench.csv
finish
exit 0
