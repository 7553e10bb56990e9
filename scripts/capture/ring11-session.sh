#!/usr/bin/env bash
# v25b-v25d (docs/PERFORMANCE.md), experiment builds of rowskew.cu
# (hint-variants.sh with SOURCES=kernels/rowskew.cu) against the default;
# CPK_RING_ONEBAR and CPK_SKEW_ONEBAR were measured here and removed from
# the tree since (their code: results/h200/bounds/ring12-2026-12-01T2252/
# v25-experiments.patch.gz, a diff against c450cf0's kernels/rowskew.cu):
#   fold2 = -DCPK_RING_FOLD=2: softmax's write on the ring with the row's
#           1 / sum folded into the exponent's FMA and the row's NaN / -inf
#           cases taken by one branch a vector (v25b; v25a, the fold with
#           a select an element, compiled and left out: fold2 issues fewer
#           instructions);
#   rob   = -DCPK_RING_ONEBAR=1: the ring's A reduced in one exchange, one
#           named barrier instead of four (softmax) or two (v25c);
#   robf2 = both;
#   sob   = -DCPK_SKEW_ONEBAR=1: the same for skew_k's A, one __syncthreads
#           instead of four (softmax, rmsnorm_bwd) or two (v25d);
#   all   = robf2 and sob.
# One call:
#  - each ring variant's FUSED cases through the ring wherever it takes
#    them (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only and its FUSED
#    smoke set under memcheck (robf2 and all: racecheck too; robf2 also
#    initcheck and synccheck); sob's FUSED cases all through skew_k
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=0) the same, under memcheck and
#    racecheck;
#  - softmax at 2^20 and 2^18, every dtype (the ring): def1 / fold2 / rob /
#    robf2 / def2; rmsnorm (the ring): def1 / rob / def2;
#    softmax_backward (skew_k): def1 / sob / all on the ring
#    (CPK_SKEW_RING=1) / def2; rmsnorm_backward 2^18 (skew_k): def1 / sob
#    / def2.
#   BIN=DIR VAR=DIR bash scripts/capture/ring11-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring11-session.sh OUTDIR [BUDGET_S]}
budget=${2:-480}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
v() { echo "$var/cuda_portfolio-$1"; }
gpu_csv gpu-before.csv
R="CPK_SKEW_MIN=1 CPK_SKEW_RING=2"
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-robf2 "$(v robf2)" memcheck \
  racecheck initcheck synccheck
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-rob "$(v rob)" memcheck
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-fold2 "$(v fold2)" memcheck
VT_TLIM=40 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=0" \
  vtools skew-sob "$(v sob)" memcheck racecheck
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-all "$(v all)" memcheck racecheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc softmax $dt $sh fold2 "$(v fold2)" rob "$(v rob)" \
      robf2 "$(v robf2)"
  done
done
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc rmsnorm $dt $sh rob "$(v rob)"
  done
done
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_one def1 "$pf" softmax_backward $dt $sh CPK_NONE=1
    bench_one sob "$(v sob)" softmax_backward $dt $sh CPK_NONE=1
    bench_one allring "$(v all)" softmax_backward $dt $sh CPK_SKEW_RING=1
    bench_one def2 "$pf" softmax_backward $dt $sh CPK_NONE=1
  done
done
for dt in bf16 fp16 fp32; do
  bench_abc rmsnorm_backward $dt 256x262144 sob "$(v sob)"
done
finish
exit 0
