#!/usr/bin/env bash
# v42 (docs/PERFORMANCE.md): fused_k's block-per-row configurations as a
# persistent grid whose blocks draw their rows from one counter
# (CPK_TIX, an experiment macro of kernels/rowfused.cu in the patch below),
# against the build's default in one lease. Variants ($VAR), built with
# scripts/capture/hint-variants.sh after `git apply` of
# results/h200/bounds/v42-2026-12-03T1515/v42.patch.gz on 255020d (the
# macro is not in the tree):
#   tixr  -DCPK_TIX=8   rmsnorm only (its w copied once a block);
#   tixa  -DCPK_TIX=15  row_sum, softmax, softmax_bwd and rmsnorm.
# Checks first: tixa's FUSED --test-only and FUSED smoke set under
# memcheck and racecheck (the counter's cell in shared memory, handed on
# through the reduction's barrier), tixr's FUSED rmsnorm --test-only,
# tixa's rmsnorm at 300x20000 and softmax at 1200x3000 (more rows than
# resident blocks: every block draws) under memcheck and racecheck;
# then, at the three standard shapes those configurations take (16384x4096,
# 8192x8192, 2048x32768) in every dtype, rmsnorm default / tixr / tixa /
# default and the other three ops default / tixa / default; Nsight Compute
# on rmsnorm fp32 2048x32768 of the default and of tixr; a second pass of
# rmsnorm's grid if time is left:
#   BIN=DIR VAR=DIR bash scripts/capture/v42-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v42-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
tr=$var/cuda_portfolio-tixr
ta=$var/cuda_portfolio-tixa
vtools tixa "$ta" memcheck racecheck
VT_SEL="--op rmsnorm" vtools tixr "$tr"
SAN_TAG=tixa sanshapes "$ta" rmsnorm 300x20000
SAN_TAG=tixa sanshapes "$ta" softmax 1200x3000
ONE_BUDGET=0.3
shapes="16384x4096 8192x8192 2048x32768"
abc_grid rmsnorm "fp32 bf16 fp16" "$shapes" tixr "$tr" tixa "$ta"
for op in row_sum softmax softmax_backward; do
  abc_grid $op "fp32 bf16 fp16" "$shapes" tixa "$ta"
done
ncu_one ncu-def-rmsnorm-fp32-2048x32768 "$pf" rmsnorm fp32 2048x32768 \
  SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
ncu_one ncu-tixr-rmsnorm-fp32-2048x32768 "$tr" rmsnorm fp32 2048x32768 \
  SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
BA_SUF=-p2 abc_grid rmsnorm "fp32 bf16 fp16" "$shapes" tixr "$tr" tixa "$ta"
finish_checks v42
exit 0
