#!/usr/bin/env bash
# v44b (docs/PERFORMANCE.md), after v44's call: 16-bit rmsnorm_backward's
# rows of 513-1024 columns the other way from v44, on four 128-thread
# blocks an SM of 4 warp groups each (`b128`, -DCPK_RB_BLK=8), beside
# v44's one 512-thread block of 16 (`blk`, -DCPK_RB_BLK=7) and the
# default's two 256-thread blocks of 8; Nsight Compute's warp states and
# instruction counts on the three row kernels; and racecheck on v44's
# configuration of two 256-thread groups a block (30) at shapes with and
# without a block whose groups take unequal rows, and with and without a
# row shorter than the slots, where v44's smoke set reported hazards in
# the block's dw merge (`rcdiag-*`, diagnostics: not counted in the
# checks line, which is b128's). Built here as in v44-session.sh, on
# 9bb676c's tree with results/h200/bounds/v44b-*/v44b.patch.gz applied
# (v44's macro and configuration 31 beside it; since v45 the tree has
# only configuration 31, as configuration 28 under CPK_RB_W128):
#   SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh \
#     /tmp/var2 "b128=-DCPK_RB_BLK=8 -Xptxas=-v"
#   BIN=DIR VAR=DIR bash scripts/capture/v44b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v44b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
blk=$var/cuda_portfolio-blk
b128=$var/cuda_portfolio-b128
gpu_csv gpu-before.csv
VT_SEL="--op rmsnorm_backward" VT_LIM=75 vtools b128 "$b128" memcheck racecheck
SAN_TAG=b128 sanshapes "$b128" rmsnorm_backward 300x1024 5000x1024
for sh in 3x6000 4x6000 3x8192 4x8192; do
  run "rcdiag-blk-fp16-$sh.txt" 60 compute-sanitizer --tool racecheck \
    --racecheck-report all --error-exitcode 9 "$blk" --alloc exact \
    --op rmsnorm_backward --dtype fp16 --shape $sh
done
for p in 1 2; do
  BA_SUF=-p$p abc_grid rmsnorm_backward "bf16 fp16" 65536x1024 blk "$blk" \
    b128 "$b128"
done
for b in def:$pf blk:$blk b128:$b128; do
  [ "$(left)" -gt 60 ] || continue
  NCU_K='fused_k' ncu_one "ncu-${b%%:*}-bf16-65536x1024" "${b#*:}" \
    rmsnorm_backward bf16 65536x1024 SpeedOfLight SchedulerStats \
    WarpStateStats InstructionStats LaunchStats Occupancy
done
finish_checks v44b
exit 0
