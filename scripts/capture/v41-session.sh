#!/usr/bin/env bash
# v41a (docs/PERFORMANCE.md): FUSED row_sum's balanced segment path
# (kernels/rowseg.cu, segb_k, -DCPK_SEGB=1: the rows' vectors cut into one
# equal range a resident block), against the build's default in one lease.
# Variants ($VAR): `git apply` results/h200/bounds/v41c-2026-12-03T1433/
# v41.patch.gz on c8cfa22, build, then scripts/capture/hint-variants.sh
# with SOURCES=kernels/rowseg.cu: segb (-DCPK_SEGB=1), segbu4 (that and
# -DCPK_SEG_U=4: 4 loads a thread a step). Checks first: each variant's
# FUSED row_sum cases through the path (CPK_SEG_MIN=1) under --test-only,
# segb's row_sum smoke set under memcheck, racecheck and initcheck, segbu4's
# under memcheck, and segb's whole --test-only with its defaults; then
# row_sum default / segb / segbu4 / default at the three widest standard
# shapes in every dtype (the variants' default takes 16385 columns and
# up), the narrower shapes with the path forced (CPK_SEG_MIN=1), segb
# capped at 2 and 3 blocks an SM, and Nsight Compute on segb_k:
#   BIN=DIR VAR=DIR bash scripts/capture/v41-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v41-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
sb=$var/cuda_portfolio-segb
u4=$var/cuda_portfolio-segbu4
VT_SEL="--op row_sum" VT_ENV=CPK_SEG_MIN=1 vtools segb "$sb" memcheck \
  racecheck initcheck
VT_SEL="--op row_sum" VT_ENV=CPK_SEG_MIN=1 vtools segbu4 "$u4" memcheck
run test-only-segb-all.txt 150 "$sb" --test-only
ONE_BUDGET=0.3
abc_grid row_sum "fp32 bf16 fp16" "2048x32768 256x262144 32x1048576" \
  segb "$sb" segbu4 "$u4"
BA_ENV=CPK_SEG_MIN=1 abc_grid row_sum "fp32 bf16" \
  "8192x8192 16384x4096 65536x1024" segb "$sb"
for n in 2 3; do
  BA_SUF=-pm$n BA_ENV=CPK_SEGB_PER_SM=$n bench_abc row_sum fp32 2048x32768 \
    segb "$sb"
done
NCU_K=segb_k ncu_one ncu-segb-row_sum-fp32-2048x32768 "$sb" row_sum fp32 \
  2048x32768 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
NCU_K=segb_k ncu_one ncu-segb-row_sum-bf16-32x1048576 "$sb" row_sum bf16 \
  32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
finish_checks v41
exit 0
