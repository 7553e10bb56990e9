#!/usr/bin/env bash
# The wide path's third sweep (docs/PERFORMANCE.md, v9): wide_k pipelined
# across rows (each row's write sweep reads the next row's inputs), the
# variant binary rebuilt as in wide-session.sh, the default build's pick
# beside every case.
#   bash scripts/capture/wide3-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: wide3-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
wv=$var/cuda_portfolio-wide
gpu_csv gpu-before.csv
run test-only-cl4.txt 60 env CPK_WIDE_MIN=1 CPK_WIDE_CL=4 "$wv" --test-only --variant fused
run test-only-cl16.txt 60 env CPK_WIDE_MIN=1 CPK_WIDE_CL=16 CPK_WIDE_NT=256 "$wv" --test-only --variant fused
run memcheck-smoke.txt 60 env CPK_WIDE_MIN=1 CPK_WIDE_CL=4 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$wv" --alloc exact --smoke --variant fused
run racecheck-smoke.txt 45 env CPK_WIDE_MIN=1 CPK_WIDE_CL=2 compute-sanitizer --tool racecheck \
  --error-exitcode 9 "$wv" --alloc exact --smoke --variant fused --op rmsnorm_backward
one() { # NAME DTYPE SHAPE OP [env...]: one timed case
  local name=$1 dt=$2 sh=$3 op=$4
  shift 4
  [ "$(left)" -gt 10 ] || return 0
  if [ "$name" = def ]; then
    run "$name-$op-$dt-$sh.txt" 30 "$pf" --bench --op $op --dtype $dt --shape $sh \
      --budget 0.5 --json "$out/$name-$op-$dt-$sh.json"
  else
    run "$name-$op-$dt-$sh.txt" 30 env CPK_WIDE_MIN=1024 "$@" "$wv" --bench \
      --variant fused --op $op --dtype $dt --shape $sh --budget 0.5 \
      --json "$out/$name-$op-$dt-$sh.json"
  fi
}
w() { # NT CL G DTYPE SHAPE OP
  one "w$1-$2-$3" "$4" "$5" "$6" CPK_WIDE_NT=$1 CPK_WIDE_CL=$2 CPK_WIDE_G=$3
}
s=256x262144
for op in softmax rmsnorm row_sum softmax_backward; do
  for dt in bf16 fp32; do
    one def $dt $s $op
    w 256 8 33 $dt $s $op
    w 256 4 66 $dt $s $op
    w 256 16 14 $dt $s $op
  done
done
one def bf16 $s rmsnorm_backward
w 256 8 16 bf16 $s rmsnorm_backward
one def fp32 $s rmsnorm_backward
w 256 16 7 fp32 $s rmsnorm_backward
for dt in bf16 fp16 fp32; do
  one def $dt 2048x32768 rmsnorm_backward
  w 512 2 66 $dt 2048x32768 rmsnorm_backward
  [ $dt = fp32 ] || w 256 2 132 $dt 2048x32768 rmsnorm_backward
done
s=32x1048576
for op in softmax row_sum rmsnorm softmax_backward; do
  for dt in bf16 fp32; do
    one def $dt $s $op
    w 256 8 32 $dt $s $op
    w 256 16 32 $dt $s $op
  done
done
for op in rmsnorm softmax row_sum; do
  for dt in bf16 fp32; do
    one def $dt 2048x32768 $op
    w 256 2 132 $dt 2048x32768 $op
  done
done
for dt in bf16 fp32; do
  one def $dt 8192x8192 rmsnorm_backward
  w 256 1 264 $dt 8192x8192 rmsnorm_backward
done
finish
exit 0
