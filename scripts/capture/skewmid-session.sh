#!/usr/bin/env bash
# After v21's final run: the skew path on narrower rows than it takes by
# default, through the environment only (the binary's own knob
# CPK_SKEW_MIN: every skew op's rows of that many columns and more). One
# call:
#  - 2048x32768, each of softmax, softmax_backward, rmsnorm and
#    rmsnorm_backward in each dtype: the default / skew (CPK_SKEW_MIN=16385)
#    / the default;
#  - rmsnorm_backward at 8192x8192 and 16384x4096 in each dtype: the
#    default / skew (CPK_SKEW_MIN=4096) / the default;
#  - rmsnorm_backward's --test-only with CPK_SKEW_MIN=4096.
#   BIN=DIR bash scripts/capture/skewmid-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skewmid-session.sh OUTDIR [BUDGET_S]}
budget=${2:-230}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ONE_BUDGET=0.3
for op in rmsnorm_backward softmax softmax_backward rmsnorm; do
  for dt in bf16 fp16 fp32; do
    bench_one def1 "$pf" $op $dt 2048x32768 CPK_NONE=1
    bench_one skew "$pf" $op $dt 2048x32768 CPK_SKEW_MIN=16385
    bench_one def2 "$pf" $op $dt 2048x32768 CPK_NONE=1
  done
done
for sh in 8192x8192 16384x4096; do
  for dt in bf16 fp16 fp32; do
    bench_one def1 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
    bench_one skew "$pf" rmsnorm_backward $dt $sh CPK_SKEW_MIN=4096
    bench_one def2 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
  done
done
run test-only-skew4096-rmsnorm_backward.txt 40 env CPK_SKEW_MIN=4096 "$pf" \
  --test-only --op rmsnorm_backward
finish
exit 0
