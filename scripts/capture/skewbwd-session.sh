#!/usr/bin/env bash
# v21 (docs/PERFORMANCE.md): rmsnorm_backward's widest rows on the skew
# path (kernels/rowskew.cu: dw summed per block in shared memory, one
# partial a block, each block summing its share of its columns over the
# partials at the end). One call:
#  - every FUSED case of the four skew ops through the skew path
#    (CPK_SKEW_MIN=1) under --test-only and its FUSED smoke set under
#    memcheck, racecheck, initcheck, synccheck;
#  - the same on 100 blocks (CPK_SKEW_G=100: other partial counts, and the
#    grid path where a row has more than 100 segments) under --test-only,
#    memcheck and racecheck;
#  - rmsnorm_backward's --test-only (the plan's picks);
#  - rmsnorm_backward at 2^20 and 2^18 columns, each dtype: the default /
#    off (CPK_SKEW=0: the grid path) / the lag one step longer
#    (CPK_SKEW_L=1) / the default;
#  - a variant build with 256 segments a row at most (seg256,
#    -DCPK_SKEW_MAXSEG=256 on commit c989d71, whose macro gave every op
#    that limit; since v21 the limit is per op, the macro gone: fp32 2^20
#    rows of softmax_backward and rmsnorm_backward on the skew path): its
#    --test-only of those two ops in fp32, and those two cases, default /
#    seg256 / default;
#  - Nsight Compute on skew_k, rmsnorm_backward bf16 256x262144;
#  - the build's whole --test-only, and its GPU ctest entries
#    (KERNEL_REQUIRE_GPU=1).
#   BIN=DIR bash scripts/capture/skewbwd-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skewbwd-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_ENV=CPK_SKEW_MIN=1 vtools skewall "$pf" memcheck racecheck initcheck \
  synccheck
VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_G=100" vtools skewg100 "$pf" memcheck \
  racecheck
run test-only-rmsnorm_backward.txt 60 "$pf" --test-only --op rmsnorm_backward
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp32 fp16; do
    [ "$dt$sh" = fp3232x1048576 ] && continue # 256 segments: grid path
    bench_one def1 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
    bench_one off "$pf" rmsnorm_backward $dt $sh CPK_SKEW=0
    bench_one l1 "$pf" rmsnorm_backward $dt $sh CPK_SKEW_L=1
    bench_one def2 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
  done
done
v256=$var/cuda_portfolio-seg256
if [ -x "$v256" ]; then
  for op in softmax_backward rmsnorm_backward; do
    run test-only-seg256-$op.txt 40 "$v256" --test-only --op $op --dtype fp32
  done
  for op in softmax_backward rmsnorm_backward; do
    bench_one def1 "$pf" $op fp32 32x1048576 CPK_NONE=1
    bench_one seg256 "$v256" $op fp32 32x1048576 CPK_NONE=1
    bench_one def2 "$pf" $op fp32 32x1048576 CPK_NONE=1
  done
fi
NCU_K=skew_k ncu_one ncu-skew-rmsnorm_backward-bf16-256x262144 "$pf" \
  rmsnorm_backward bf16 256x262144 SpeedOfLight MemoryWorkloadAnalysis \
  Occupancy LaunchStats WarpStateStats
run test-only-default.txt 150 "$pf" --test-only
run ctest-gpu.txt $(($(left) - 10)) env KERNEL_REQUIRE_GPU=1 ctest \
  --test-dir build/linux/tests -L gpu -E 'gpu\.test_only' --output-on-failure
finish
exit 0
