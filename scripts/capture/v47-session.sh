#!/usr/bin/env bash
# v47 (docs/PERFORMANCE.md), after v46b: 16-bit softmax at 32768 columns
# waited 1.60 cycles an instruction for an instruction (Nsight Compute's
# no_instruction; 0.20-0.35 in the other row kernels). `roll`
# (-DCPK_SM_ROLL=1) runs softmax's shared-memory slots (configurations
# with NS > 0 and no prefetch: 8 for 16-bit rows of 16385-32768 columns,
# 10 for fp32 rows of 16385-32768) in rolled loops, a body NS times
# shorter there, the same operations in the same order. Checks: roll's
# softmax --test-only, its softmax smoke set under memcheck and racecheck,
# softmax at 7x20000, 3x32768 and 33x16385 under both, and its --dump
# outputs against the build's (bits.txt: the same bits). Timed: def1 /
# roll / def2 on softmax at 2048x32768 in every dtype, twice; Nsight
# Compute with the raw per-reason stall counters on bf16 2048x32768,
# the build and roll.
# Built here from 3bfc753's tree (b20ce6a with CPK_SM_ROLL added; since
# taken out again: bounds/v47-*/v47.patch.gz puts it back):
#   SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh \
#     /tmp/var "roll=-DCPK_SM_ROLL=1 -Xptxas=-v"
#   BIN=DIR VAR=DIR bash scripts/capture/v47-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v47-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
roll=$var/cuda_portfolio-roll
gpu_csv gpu-before.csv
VT_SEL="--op softmax" VT_LIM=75 vtools roll "$roll" memcheck racecheck
SAN_TAG=roll sanshapes "$roll" softmax 7x20000 3x32768 33x16385
bitscmp roll "$roll" softmax "300x20000 7x32768 64x16385 64x32768"
ONE_BUDGET=${ONE_BUDGET:-0.5}
for p in 1 2; do
  BA_SUF=-p$p abc_grid softmax "bf16 fp16 fp32" 2048x32768 roll "$roll"
done
for b in def:$pf roll:$roll; do
  [ "$(left)" -gt 30 ] || continue
  ncu_stalls "ncu-${b%%:*}-softmax-bf16-2048x32768" "${b#*:}" softmax bf16 \
    2048x32768
done
finish_checks v47
exit 0
