#!/usr/bin/env bash
# v25g (docs/PERFORMANCE.md): the ring's prologue issues the first two
# slots' copies alone, the other first slots' after the first has landed
# (the variant cuda_portfolio-stage: hint-variants.sh with
# SOURCES=kernels/rowskew.cu stage=-DCPK_RING_STAGE=1), against the
# default's six at once. CPK_RING_STAGE was removed from the tree after
# this call (its code: v25g.patch.gz beside the evidence,
# results/h200/bounds/ring15-2026-12-01T2315/). One call:
#  - the variant's FUSED cases through the ring wherever it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only and its FUSED
#    smoke set under memcheck and racecheck;
#  - softmax and rmsnorm at 2^20 and 2^18, every dtype (the ring):
#    def1 / stage / def2.
#   BIN=DIR VAR=DIR bash scripts/capture/ring15-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring15-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
sv=$var/cuda_portfolio-stage
gpu_csv gpu-before.csv
VT_TLIM=40 VT_LIM=40 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ring-stage "$sv" memcheck racecheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc softmax $dt $sh stage "$sv"
    bench_abc rmsnorm $dt $sh stage "$sv"
  done
done
finish
exit 0
