#!/usr/bin/env bash
# v28a (docs/PERFORMANCE.md): copy kernels beside copy_k and the copy's
# peer, cudaMemcpyAsync (kernels/elementwise.cu, CPK_COPY_EXP; the variant
# cpx, hint-variants.sh with SOURCES=kernels/elementwise.cu
# cpx=-DCPK_COPY_EXP=1, its kernel picked by CPK_COPY_V). One call:
#  - cpx's copy --test-only under each CPK_COPY_V (1-5), its copy smoke set
#    under memcheck and racecheck with the bulk-copy kernels (2, 5);
#  - the copy at 2^25 and 2^26 16-bit elements and 2^26 and 2^28 fp32,
#    every kernel (default binary: copy_k, then cpx under CPK_COPY_V 1-5,
#    then copy_k again), each with its peer sampled in alternation;
#  - which kernels a cudaMemcpyAsync launches, by Nsight Compute on one
#    verification run of the copy (clocks not locked).
#   BIN=DIR VAR=DIR bash scripts/capture/cpx-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: cpx-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
cx="$var/cuda_portfolio-cpx"
for v in 1 2 3 4 5; do
  run test-only-cpx-v$v.txt 30 env CPK_COPY_V=$v "$cx" --test-only --op copy
done
for v in 2 5; do
  for tool in memcheck racecheck; do
    run $tool-smoke-cpx-v$v.txt 40 env CPK_COPY_V=$v compute-sanitizer \
      --tool $tool --error-exitcode 9 "$cx" --alloc exact --smoke --op copy
  done
done
for c in "bf16 33554432" "bf16 67108864" "fp32 67108864" "fp32 268435456"; do
  set -- $c
  flat_one def1 "$pf" copy $1 $2
  for v in 1 2 3 4 5; do flat_one v$v "$cx" copy $1 $2 CPK_COPY_V=$v; done
  flat_one def2 "$pf" copy $1 $2
done
run ncu-memcpy.txt 60 ncu --clock-control none --section SpeedOfLight \
  --section LaunchStats --launch-count 12 "$pf" --op copy --dtype bf16 \
  --shape 1x67108864 --budget 0.05 --min-samples 3 --max-samples 3 \
  --warmup 0.01 --json /tmp/ncu-memcpy.json
gpu_csv gpu-after-bench.csv
finish
exit 0
