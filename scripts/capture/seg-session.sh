#!/usr/bin/env bash
# v17b (docs/PERFORMANCE.md): FUSED row_sum's segment path (kernels/
# rowseg.cu), on by default from 131073 columns in the build measured. One
# lease: every FUSED case through it (CPK_SEG_MIN=1) under --test-only and
# its FUSED smoke set under memcheck, racecheck and initcheck; then row_sum
# in every dtype, the build's default (the segment path) / the same binary
# with it off (CPK_SEG=0: v15's wide path) / the default, at 2^20 and 2^18,
# and at the narrower standard shapes the default (FUSED on chip) / the
# segment path forced (CPK_SEG_MIN=1) / the default; Nsight Compute on its
# kernel at 32x1048576 bf16:
#   BIN=DIR bash scripts/capture/seg-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: seg-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_ENV=CPK_SEG_MIN=1 vtools segall "$pf" memcheck racecheck initcheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp32 fp16; do
    BA_ENV=CPK_SEG=0 bench_abc row_sum $dt $sh wide "$pf"
  done
done
for sh in 2048x32768 8192x8192 65536x1024; do
  for dt in bf16 fp32; do
    BA_ENV=CPK_SEG_MIN=1 bench_abc row_sum $dt $sh seg "$pf"
  done
done
NCU_K=seg_k ncu_one ncu-seg-row_sum-bf16-32x1048576 "$pf" row_sum bf16 \
  32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
finish
exit 0
