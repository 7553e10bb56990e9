#!/usr/bin/env bash
# v26a (docs/PERFORMANCE.md): B's cells held in registers from the group's
# previous A and each slot refilled as soon as its group has read it
# (the variants, hint-variants.sh with SOURCES=kernels/rowskew.cu:
# reg=-DCPK_RING_REG=1, regf2="-DCPK_RING_REG=1 -DCPK_RING_FOLD=2",
# f2=-DCPK_RING_FOLD=2, v25b alone), against the default. One call:
#  - reg's and regf2's FUSED cases through the ring wherever it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only and their FUSED
#    smoke sets under memcheck, racecheck, initcheck and synccheck;
#  - softmax and rmsnorm at 2^20 and 2^18, every dtype (the ring):
#    def1 / reg / regf2 / f2 / def2;
#  - softmax_backward there, reg with the ring taking it (CPK_SKEW_RING=1)
#    against the default's skew_k: def1 / reg / def2;
#  - the copy at the byte counts of those rows (2^25 and 2^26 elements of
#    16 bits, 2^25 of fp32), every dtype's default copy.
#   BIN=DIR VAR=DIR bash scripts/capture/ring16-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring16-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ring-reg "$var/cuda_portfolio-reg" memcheck racecheck initcheck synccheck
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ring-regf2 "$var/cuda_portfolio-regf2" memcheck racecheck initcheck synccheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    for op in softmax rmsnorm; do
      bench_abc $op $dt $sh reg "$var/cuda_portfolio-reg" \
        regf2 "$var/cuda_portfolio-regf2" f2 "$var/cuda_portfolio-f2"
    done
    BA_ENV=CPK_SKEW_RING=1 bench_abc softmax_backward $dt $sh \
      reg "$var/cuda_portfolio-reg"
  done
done
for dt in bf16 fp16; do
  for n in 33554432 67108864; do
    bench_one copy "$pf" copy $dt $n CPK_NONE=1
  done
done
bench_one copy "$pf" copy fp32 33554432 CPK_NONE=1
bench_one copy "$pf" copy fp32 67108864 CPK_NONE=1
gpu_csv gpu-after-bench.csv
finish
exit 0
