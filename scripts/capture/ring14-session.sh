#!/usr/bin/env bash
# v25b (docs/PERFORMANCE.md), before it is taken: the variant
# cuda_portfolio-fold2 (hint-variants.sh with SOURCES=kernels/rowskew.cu
# fold2=-DCPK_RING_FOLD=2; rowskew.cu's cubin identical to ring11's fold2)
# as a default build would run. One call:
#  - its whole --test-only (the build's plan, every op) and its smoke set
#    under memcheck, racecheck, initcheck and synccheck (exact allocator);
#  - softmax at 2^20 and 2^18, every dtype (the ring): def1 / fold2 /
#    def2 / fold2 again, half a second of samples each.
#   BIN=DIR VAR=DIR bash scripts/capture/ring14-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring14-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
fv=$var/cuda_portfolio-fold2
gpu_csv gpu-before.csv
run test-only-fold2.txt 120 "$fv" --test-only
for tool in memcheck racecheck initcheck synccheck; do
  run $tool-smoke-fold2.txt 60 compute-sanitizer --tool $tool \
    --error-exitcode 9 "$fv" --alloc exact --smoke
done
ONE_BUDGET=0.5
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc softmax $dt $sh fold2 "$fv"
    bench_one fold2b "$fv" softmax $dt $sh CPK_NONE=1
  done
done
finish
exit 0
