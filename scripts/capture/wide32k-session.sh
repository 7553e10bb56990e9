#!/usr/bin/env bash
# The wide path (wide_k) for the 2048x32768 rows that FUSED holds on chip
# at 0.83-0.88 of the copy ceiling (docs/PERFORMANCE.md, "What is left"),
# after v12's final run, one lease: a variant whose wide-path configuration
# comes from the environment (hint-variants.sh wide=-DCPK_FUSED_WIDE_KNOBS=1),
# every FUSED verification case of 16385 columns and more through it
# (256 threads, a block per row, 528 in the grid) and its FUSED smoke set
# the same way under memcheck, then per case the final binary's pick
# ($pf) / the sweep (wNTcCLgG: threads, cluster size, clusters in the
# grid) / the pick again:
#   bash scripts/capture/wide32k-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: wide32k-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
wv=$var/cuda_portfolio-wide
w1="CPK_WIDE_MIN=16385 CPK_WIDE_NT=256 CPK_WIDE_CL=1 CPK_WIDE_G=528"
gpu_csv gpu-before.csv
run test-only-w256-1-528.txt 60 env $w1 "$wv" --test-only --variant fused
run memcheck-smoke-w256-1-528.txt 60 env $w1 compute-sanitizer \
  --tool memcheck --error-exitcode 9 "$wv" --alloc exact --smoke \
  --variant fused
ONE_RESERVE=10 ONE_BUDGET=0.3
for c in bf16:softmax bf16:rmsnorm bf16:row_sum fp32:rmsnorm fp32:row_sum \
  fp16:softmax; do
  dt=${c%%:*} op=${c#*:}
  bench_one def1 "$pf" $op $dt 2048x32768 CPK_NONE=1
  for g in 256:1:528 256:2:264 512:1:264 256:1:264 256:4:132; do
    IFS=: read -r nt cl gr <<<"$g"
    bench_one "w${nt}c${cl}g${gr}" "$wv" $op $dt 2048x32768 CPK_WIDE_MIN=16385 \
      CPK_WIDE_NT=$nt CPK_WIDE_CL=$cl CPK_WIDE_G=$gr
  done
  bench_one def2 "$pf" $op $dt 2048x32768 CPK_NONE=1
done
finish
exit 0
