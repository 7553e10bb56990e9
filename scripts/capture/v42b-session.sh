#!/usr/bin/env bash
# v42b and v42c (docs/PERFORMANCE.md), one call, against the build's
# default. Variants ($VAR), built with scripts/capture/hint-variants.sh
# (rs1536 and rs2048 after `git apply` of
# results/h200/bounds/v42b-2026-12-03T1538/v42c.patch.gz on 255020d: the
# macro is not in the tree):
#   rmsplain  -DCPK_FUSED_RMS_PLAIN_NS=12  v42b: rmsnorm's row stores
#             plain in the configurations of up to 12 shared-memory slots
#             (the fp32 rows of 16385-32768 columns), which stream them
#             (.cs) by default;
#   rs1536    -DCPK_RS16_TPS=1536  v42c: 16-bit row_sum's block-per-row
#   rs2048    -DCPK_RS16_TPS=2048  register-only configurations built for
#             1536 or 2048 threads an SM.
# Checks: each variant's FUSED --test-only of its op and its FUSED smoke
# set under memcheck (racecheck too for rs2048), rmsplain's rmsnorm at
# 300x20000 under memcheck and racecheck; the variants' register counts
# (cuobjdump); then rmsnorm fp32 2048x32768 default / rmsplain / default
# and row_sum bf16 and fp16 at 16384x4096 and 8192x8192 default / rs1536
# / rs2048 / default, two passes; Nsight Compute on row_sum bf16
# 8192x8192 of all three builds:
#   BIN=DIR VAR=DIR bash scripts/capture/v42b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v42b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
rp=$var/cuda_portfolio-rmsplain
r15=$var/cuda_portfolio-rs1536
r20=$var/cuda_portfolio-rs2048
VT_SEL="--op rmsnorm" vtools rmsplain "$rp" memcheck
VT_SEL="--op row_sum" vtools rs1536 "$r15" memcheck
VT_SEL="--op row_sum" vtools rs2048 "$r20" memcheck racecheck
SAN_TAG=rmsplain sanshapes "$rp" rmsnorm 300x20000
for v in rs1536 rs2048; do
  run "resource-$v.txt" 60 cuobjdump --dump-resource-usage \
    "$var/cuda_portfolio-$v"
done
ONE_BUDGET=0.3
for s in "" -p2; do
  BA_SUF=$s bench_abc rmsnorm fp32 2048x32768 rmsplain "$rp"
  BA_SUF=$s abc_grid row_sum "bf16 fp16" "16384x4096 8192x8192" \
    rs1536 "$r15" rs2048 "$r20"
done
BA_SUF=-p3 bench_abc rmsnorm fp32 2048x32768 rmsplain "$rp"
for b in def:$pf rs1536:$r15 rs2048:$r20; do
  ncu_one "ncu-${b%%:*}-row_sum-bf16-8192x8192" "${b#*:}" row_sum bf16 \
    8192x8192 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats
done
finish_checks v42b
exit 0
