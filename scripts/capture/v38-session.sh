#!/usr/bin/env bash
# v38 (docs/PERFORMANCE.md): the build ($BIN, the head's kernels) beside
# the variant c32k ($VAR/cuda_portfolio-c32k, -DCPK_C32K=11: row_sum,
# softmax and rmsnorm rows of 16385-32768 columns on clusters of 4 (16-bit)
# or 8 (fp32) register-only 256-thread blocks of 4 slots, built for 4
# blocks an SM, configurations 28 and 29), and c32k3 (the same built for 3
# blocks an SM: -DCPK_C32K_MB=3). First the nine 2048x32768 cases
# def / c32k / c32k3 / def; then the checks of what the variants change:
# their FUSED --test-only of the three ops (70x24576 and 6x30001 among
# them), c32k's smoke sets (2x24576) under memcheck, two shapes of
# 16385-32768 columns each under memcheck and racecheck; then the nine
# cases again while 100 s are left, and Nsight Compute on c32k's nine
# cases while time is left. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v38-session.sh OUTDIR [BUDGET_S]
# (run on 2026-12-03 12:55 UTC: bounds/v38-2026-12-03T1255, with OUTDIR
# /tmp/v38 and BUDGET_S 530. The variants' code is not in the tree: apply
# that folder's v38.patch.gz to kernels/rowfused.cu, then
# SOURCES=kernels/rowfused.cu bash scripts/capture/hint-variants.sh DIR
# c32k=-DCPK_C32K=11 c32k3="-DCPK_C32K=11 -DCPK_C32K_MB=3")
set -u
out=${1:?usage: v38-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
cv=$var/cuda_portfolio-c32k
cv3=$var/cuda_portfolio-c32k3
run cuobjdump-c32k.txt 30 cuobjdump --dump-resource-usage "$cv"
run cuobjdump-c32k3.txt 30 cuobjdump --dump-resource-usage "$cv3"
for op in softmax rmsnorm row_sum; do
  BA_SUF=-1 abc_grid $op "bf16 fp16 fp32" 2048x32768 c32k "$cv" c32k3 "$cv3"
done
for op in softmax rmsnorm row_sum; do
  VT_TLIM=60 VT_LIM=60 VT_SEL="--op $op" vtools "c32k-$op" "$cv" memcheck
  VT_TLIM=60 VT_SEL="--op $op" vtools "c32k3-$op" "$cv3"
  SAN_TAG=c32k sanshapes "$cv" $op 7x20000 3x32768
  SAN_TAG=c32k3 sanshapes "$cv3" $op 33x16385 3x32768
done
ONE_RESERVE=100
for op in softmax rmsnorm row_sum; do
  BA_SUF=-2 abc_grid $op "bf16 fp16 fp32" 2048x32768 c32k "$cv" c32k3 "$cv3"
done
for op in softmax rmsnorm row_sum; do
  for dt in bf16 fp16 fp32; do
    [ "$(left)" -gt 20 ] || break
    ncu_one "ncu-c32k-$op-$dt" "$cv" $op $dt 2048x32768 SpeedOfLight \
      Occupancy LaunchStats MemoryWorkloadAnalysis WarpStateStats
  done
done
finish_checks v38
exit 0
