#!/usr/bin/env bash
# v13a: the blocks of a persistent fused_k grid that share an SM started
# apart (kernels/rowfused.cu, CPK_FUSED_STAGGER; docs/PERFORMANCE.md,
# versions v13a), one lease. The variant is a hint-variants.sh build:
#   stag=-DCPK_FUSED_STAGGER=3 -DCPK_FUSED_SHORT16=45
# (16-bit rmsnorm and row_sum at 32768 columns on configuration 7 built for
# 2 blocks per SM). $pf is the default build. The variant's FUSED
# --test-only and smoke set under memcheck, without and with a delay; then
# each case: the default, the variant with one block per row group
# (CPK_STAG_PERSIST=0), persistent with no delay, with delays of 2000-16000
# cycles, the default again:
#   BIN=DIR bash scripts/capture/stag-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: stag-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-stag
gpu_csv gpu-before.csv
run test-only-stag0.txt 60 "$v" --test-only --variant fused
run test-only-stag4000.txt 60 env CPK_STAG_CYC=4000 "$v" --test-only \
  --variant fused
run memcheck-smoke-stag4000.txt 90 env CPK_STAG_CYC=4000 compute-sanitizer \
  --tool memcheck --error-exitcode 9 "$v" --alloc exact --smoke \
  --variant fused
ONE_RESERVE=10 ONE_BUDGET=0.3
for c in softmax:bf16:2048x32768 rmsnorm_backward:bf16:8192x8192 \
  softmax:bf16:8192x8192 rmsnorm:bf16:2048x32768 row_sum:bf16:2048x32768 \
  rmsnorm_backward:bf16:65536x1024 rmsnorm_backward:bf16:16384x4096 \
  softmax:fp16:2048x32768 softmax:bf16:16384x4096 softmax:bf16:65536x1024 \
  row_sum:bf16:8192x8192 rmsnorm_backward:fp32:8192x8192 \
  rmsnorm_backward:fp32:65536x1024 rmsnorm:bf16:16384x4096; do
  IFS=: read -r op dt sh <<<"$c"
  bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
  bench_one p0 "$v" $op $dt $sh CPK_STAG_PERSIST=0
  bench_one d0 "$v" $op $dt $sh CPK_NONE=1
  for d in 2000 4000 8000 16000; do
    bench_one d$d "$v" $op $dt $sh CPK_STAG_CYC=$d
  done
  bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
done
finish
exit 0
