#!/usr/bin/env bash
# v44 (docs/PERFORMANCE.md): 16-bit rmsnorm_backward's rows of 513-8192
# columns on one 512-thread block an SM of several row groups, their dw
# accumulators added in the block before its one partial row (`blk`,
# -DCPK_RB_BLK=7, kernels/rowfused.cu of 081e72d; v45 took the macro out
# of the tree again: results/h200/bounds/v44-*/v44.patch.gz is its diff
# against 9bb676c), against the default in one call:
#   SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh \
#     /tmp/var "blk=-DCPK_RB_BLK=7 -Xptxas=-v"     (here, on that tree)
#   BIN=DIR VAR=DIR bash scripts/capture/v44-session.sh OUTDIR [BUDGET_S]
# (on the GPU machine, from the repository root). Checks first: the
# variant's FUSED rmsnorm_backward --test-only and smoke set under
# memcheck and racecheck, and its rmsnorm_backward at shapes that put
# fewer and more rows than groups on the new configurations under both
# tools; then def1 / blk / def2 at 16-bit 65536x1024, 16384x4096 and
# 8192x8192; Nsight Compute on the row kernel and the dw kernel of both
# builds at bf16 (one launch each, while 150 s of the budget are left);
# the side by side again; the fp32 cases (kernels not changed) once as a
# control while time is left.
set -u
out=${1:?usage: v44-session.sh OUTDIR [BUDGET_S]}
budget=${2:-560}
. "$(dirname "$0")/batch-lib.sh"
blk=$var/cuda_portfolio-blk
gpu_csv gpu-before.csv
VT_SEL="--op rmsnorm_backward" VT_LIM=75 vtools blk "$blk" memcheck racecheck
SAN_TAG=blk sanshapes "$blk" rmsnorm_backward 300x1024 5000x1024 1200x4096 \
  700x8192
shs="65536x1024 16384x4096 8192x8192"
abc_grid rmsnorm_backward "bf16 fp16" "$shs" blk "$blk"
for sh in $shs; do
  for b in def:$pf blk:$blk; do
    [ "$(left)" -gt 150 ] || continue
    NCU_K='fused_k|fused_dw_k' ncu_one "ncu-${b%%:*}-bf16-$sh" "${b#*:}" \
      rmsnorm_backward bf16 $sh SpeedOfLight LaunchStats Occupancy \
      SchedulerStats
  done
done
BA_SUF=-p2 abc_grid rmsnorm_backward "bf16 fp16" "$shs" blk "$blk"
abc_grid rmsnorm_backward fp32 "$shs" blk "$blk"
finish_checks v44
exit 0
