#!/usr/bin/env bash
# v25e (docs/PERFORMANCE.md): the ring's B writes its output over the
# segment's input in the slot and one thread sends it out by a bulk copy
# (the variant cuda_portfolio-bst: hint-variants.sh with
# SOURCES=kernels/rowskew.cu bst=-DCPK_RING_BST=1; bstf2: that and
# -DCPK_RING_FOLD=2), against the default's streaming stores. CPK_RING_BST
# was removed from the tree after this call (its code: v25-experiments.patch.gz
# beside this call's evidence, results/h200/bounds/ring12-2026-12-01T2252/).
# One call:
#  - bst's FUSED cases through the ring wherever it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only and its FUSED
#    smoke set under memcheck, racecheck, initcheck and synccheck; bstf2
#    the same under --test-only and memcheck;
#  - softmax and rmsnorm at 2^20 and 2^18, every dtype (the ring):
#    def1 / bst / bstf2 (softmax) / def2; softmax_backward (skew_k by
#    default): def1 / the default's ring (CPK_SKEW_RING=1) / bst's ring /
#    def2.
#   BIN=DIR VAR=DIR bash scripts/capture/ring12-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring12-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
bv=$var/cuda_portfolio-bst
b2=$var/cuda_portfolio-bstf2
gpu_csv gpu-before.csv
R="CPK_SKEW_MIN=1 CPK_SKEW_RING=2"
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-bst "$bv" memcheck racecheck \
  initcheck synccheck
VT_TLIM=40 VT_LIM=40 VT_ENV=$R vtools ring-bstf2 "$b2" memcheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_abc softmax $dt $sh bst "$bv" bstf2 "$b2"
    bench_abc rmsnorm $dt $sh bst "$bv"
  done
done
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_one def1 "$pf" softmax_backward $dt $sh CPK_NONE=1
    bench_one ring "$pf" softmax_backward $dt $sh CPK_SKEW_RING=1
    bench_one bstring "$bv" softmax_backward $dt $sh CPK_SKEW_RING=1
    bench_one def2 "$pf" softmax_backward $dt $sh CPK_NONE=1
  done
done
finish
exit 0
