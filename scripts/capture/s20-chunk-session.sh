#!/usr/bin/env bash
# Twentieth session (docs/PERFORMANCE.md): fused_k, wide_k and grid_k take a
# row's column chunk from one helper (col_chunk), wide_k's row_sum loop calls
# sum_add and grid_k's cell loop dot_add / sum_add. The sm_90 code moved in
# rmsnorm_backward's fused_k (every dtype), 16-bit row_sum's wide_k and
# softmax_backward's grid_k. The new binary's checks first: its FUSED
# --test-only for rmsnorm_backward, for row_sum with the segment path off
# (CPK_SEG=0: the wide path takes the rows of 131073 columns and more) and
# for softmax_backward with the skew path off (CPK_SKEW=0: the grid path
# takes fp32's rows of 262145 columns and more); its --dump outputs against
# the build's (the same bits expected); memcheck on one wide_k row_sum and
# one grid_k softmax_backward case. Then old, new, old, new: --bench at the
# standard shapes that run the moved code (rmsnorm_backward up to 32768
# columns; row_sum at 2^18 and 2^20 with CPK_SEG=0; softmax_backward at 2^20
# with CPK_SKEW=0), every dtype in one run per op and shape. The last line
# says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/s20-chunk-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: s20-chunk-session.sh OUTDIR [BUDGET_S]}
budget=${2:-330}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
n=$var/cuda_portfolio-new
VT_SEL="--op rmsnorm_backward" vtools new "$n"
VT_ENV=CPK_SEG=0 VT_SEL="--op row_sum" vtools new-seg0 "$n"
VT_ENV=CPK_SKEW=0 VT_SEL="--op softmax_backward" vtools new-skew0 "$n"
bitscmp new "$n" rmsnorm_backward "300x1024 77x4096 33x8192 9x32768"
CPK_SEG=0 BITS_FILE=bits-seg0.txt bitscmp new "$n" row_sum "16x262144 4x1048576"
CPK_SKEW=0 BITS_FILE=bits-skew0.txt bitscmp new "$n" softmax_backward "4x1048576"
run memcheck-row_sum-seg0.txt 60 env CPK_SEG=0 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$n" --alloc exact --op row_sum --variant fused \
  --dtype bf16 --shape 16x262144
run memcheck-softmax_backward-skew0.txt 60 env CPK_SKEW=0 compute-sanitizer \
  --tool memcheck --error-exitcode 9 "$n" --alloc exact --op softmax_backward \
  --variant fused --dtype fp32 --shape 4x1048576
ab() {
  local name=$1 b=$2 sh
  bench_shapes "$name" "$b" rmsnorm_backward "65536x1024 16384x4096 8192x8192 2048x32768"
  for sh in 256x262144 32x1048576; do
    run "$name-row_sum-seg0-$sh.txt" "$(upto 30)" env CPK_SEG=0 "$b" --bench \
      --op row_sum --shape $sh --json "$out/$name-row_sum-seg0-$sh.json"
  done
  run "$name-softmax_backward-skew0-32x1048576.txt" "$(upto 30)" env CPK_SKEW=0 \
    "$b" --bench --op softmax_backward --shape 32x1048576 \
    --json "$out/$name-softmax_backward-skew0-32x1048576.json"
}
for p in 1 2; do
  ab old$p "$pf"
  ab new$p "$n"
done
finish_checks s20
exit 0
