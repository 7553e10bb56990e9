#!/usr/bin/env bash
# The wide path's second sweep (docs/PERFORMANCE.md, v9): more rows in
# flight per SM where the L2 holds them, the same variant binary as
# wide-session.sh, and the default build's pick again beside it.
#   bash scripts/capture/wide2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: wide2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
wv=$var/cuda_portfolio-wide
gpu_csv gpu-before.csv
one() { # NAME DTYPE SHAPE OP [env...]: one timed case
  local name=$1 dt=$2 sh=$3 op=$4
  shift 4
  [ "$(left)" -gt 10 ] || return 0
  if [ "$name" = def ]; then
    run "$name-$op-$dt-$sh.txt" 30 "$pf" --bench --op $op --dtype $dt --shape $sh \
      --budget 0.5 --json "$out/$name-$op-$dt-$sh.json"
  else
    run "$name-$op-$dt-$sh.txt" 30 env CPK_WIDE_MIN=16384 "$@" "$wv" --bench \
      --variant fused --op $op --dtype $dt --shape $sh --budget 0.5 \
      --json "$out/$name-$op-$dt-$sh.json"
  fi
}
w() { # NT CL G DTYPE SHAPE OP
  one "w$1-$2-$3" "$4" "$5" "$6" CPK_WIDE_NT=$1 CPK_WIDE_CL=$2 CPK_WIDE_G=$3
}
for dt in bf16 fp16 fp32; do
  one def $dt 2048x32768 rmsnorm_backward
  w 512 2 66 $dt 2048x32768 rmsnorm_backward
  [ $dt = fp32 ] || w 256 2 132 $dt 2048x32768 rmsnorm_backward
done
for dt in bf16 fp32; do
  one def $dt 32x1048576 row_sum
  w 256 16 32 $dt 32x1048576 row_sum
  w 256 8 32 $dt 32x1048576 row_sum
  one def $dt 256x262144 row_sum
  w 256 8 66 $dt 256x262144 row_sum
  w 256 4 132 $dt 256x262144 row_sum
done
one def bf16 256x262144 softmax
w 256 8 66 bf16 256x262144 softmax
w 256 4 66 bf16 256x262144 softmax
one def fp32 256x262144 softmax
w 256 16 33 fp32 256x262144 softmax
w 256 8 33 fp32 256x262144 softmax
one def bf16 32x1048576 softmax
w 256 8 32 bf16 32x1048576 softmax
w 256 16 32 bf16 32x1048576 softmax
one def bf16 256x262144 rmsnorm
w 256 8 66 bf16 256x262144 rmsnorm
w 256 8 33 bf16 256x262144 rmsnorm
one def fp32 256x262144 rmsnorm
w 256 16 33 fp32 256x262144 rmsnorm
w 256 16 14 fp32 256x262144 rmsnorm
for dt in bf16 fp32; do
  one def $dt 256x262144 softmax_backward
  w 256 8 66 $dt 256x262144 softmax_backward
done
finish
exit 0
