#!/usr/bin/env bash
# The wide path (v9: rows re-read from the L2, kernels/rowfused.cu wide_k)
# against the default build, on the GPU machine (docs/PERFORMANCE.md):
#   SOURCES=kernels/rowfused.cu hint-variants.sh .carry/var \
#     wide="-DCPK_FUSED_WIDE=1 -DCPK_FUSED_WIDE_KNOBS=1"
#   bash scripts/capture/wide-session.sh OUTDIR [BUDGET_S]
# First every FUSED case of the verification set through the wide kernel
# (CPK_WIDE_MIN=1: edge shapes, strides, masks, extreme rows) at two
# configurations, and the FUSED smoke set under memcheck; then the wide
# shapes timed: the default build's pick (def) and the wide kernel at
# (threads, cluster size, clusters in the grid) NT-CL-G.
set -u
out=${1:?usage: wide-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
wv=$var/cuda_portfolio-wide
gpu_csv gpu-before.csv
run test-only-cl4.txt 100 env CPK_WIDE_MIN=1 CPK_WIDE_CL=4 "$wv" --test-only --variant fused
run test-only-cl16.txt 100 env CPK_WIDE_MIN=1 CPK_WIDE_CL=16 CPK_WIDE_NT=256 "$wv" --test-only --variant fused
run memcheck-smoke.txt 60 env CPK_WIDE_MIN=1 CPK_WIDE_CL=4 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$wv" --alloc exact --smoke --variant fused
one() { # NAME DTYPE SHAPE OP [env...]: one timed case
  local name=$1 dt=$2 sh=$3 op=$4
  shift 4
  if [ "$name" = def ]; then
    run "$name-$op-$dt-$sh.txt" 30 "$pf" --bench --op $op --dtype $dt --shape $sh \
      --budget 0.5 --json "$out/$name-$op-$dt-$sh.json"
  else
    run "$name-$op-$dt-$sh.txt" 30 env "$@" "$wv" --bench --variant fused --op $op \
      --dtype $dt --shape $sh --budget 0.5 --json "$out/$name-$op-$dt-$sh.json"
  fi
}
cfgs() { # DTYPE SHAPE OP: every configuration
  one def "$@"
  one w512-8-16 "$@" CPK_WIDE_NT=512 CPK_WIDE_CL=8 CPK_WIDE_G=16
  one w256-8-33 "$@" CPK_WIDE_NT=256 CPK_WIDE_CL=8 CPK_WIDE_G=33
  one w512-16-7 "$@" CPK_WIDE_NT=512 CPK_WIDE_CL=16 CPK_WIDE_G=7
  one w256-16-14 "$@" CPK_WIDE_NT=256 CPK_WIDE_CL=16 CPK_WIDE_G=14
}
for dt in bf16 fp32; do
  for op in softmax rmsnorm_backward rmsnorm softmax_backward row_sum; do
    [ "$(left)" -gt 20 ] && cfgs $dt 256x262144 $op
  done
done
for dt in bf16 fp32; do
  for op in softmax rmsnorm softmax_backward row_sum; do
    [ "$(left)" -gt 20 ] && cfgs $dt 32x1048576 $op
  done
done
for dt in bf16 fp32; do
  [ "$(left)" -gt 15 ] || break
  one def $dt 2048x32768 rmsnorm_backward
  one w512-2-66 $dt 2048x32768 rmsnorm_backward CPK_WIDE_MIN=32768 CPK_WIDE_NT=512 CPK_WIDE_CL=2 CPK_WIDE_G=66
  one w512-4-33 $dt 2048x32768 rmsnorm_backward CPK_WIDE_MIN=32768 CPK_WIDE_NT=512 CPK_WIDE_CL=4 CPK_WIDE_G=33
  one w256-4-66 $dt 2048x32768 rmsnorm_backward CPK_WIDE_MIN=32768 CPK_WIDE_NT=256 CPK_WIDE_CL=4 CPK_WIDE_G=66
done
for dt in bf16 fp32; do
  for sh in 8192x8192 16384x4096; do
    for op in rmsnorm_backward softmax; do
      [ "$(left)" -gt 15 ] || break
      one def $dt $sh $op
      one w256-1-528 $dt $sh $op CPK_WIDE_MIN=1024 CPK_WIDE_NT=256 CPK_WIDE_CL=1 CPK_WIDE_G=528
    done
  done
done
finish
exit 0
