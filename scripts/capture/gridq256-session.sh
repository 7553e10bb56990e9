#!/usr/bin/env bash
# rmsnorm's grid-path rows of 257-1024 vectors a chunk (fp32 2^18, 16-bit
# 2^20) on 256 threads of 2 or 4 slots, two blocks per SM (kernels/
# rowfused.cu, CPK_GRID_Q256; docs/PERFORMANCE.md, versions v12g), after
# v12's final run, one lease. The variant is a hint-variants.sh build:
#   q256=-DCPK_GRID_Q256=1
# $pf is the final binary. The variant's FUSED --test-only with the plan's
# pick and with every FUSED case through the grid path (CPK_GRID_MIN=1), its
# FUSED smoke set through the grid path and its rmsnorm at 2x300001 and
# 3x1000000 under memcheck and racecheck, then each case default / variant
# / default:
#   BIN=DIR bash scripts/capture/gridq256-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: gridq256-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-q256
gpu_csv gpu-before.csv
run test-only-variant.txt 60 "$v" --test-only --variant fused
gridall "$v" memcheck racecheck
# the smoke set has no chunk of 257 vectors or more: the verification
# set's rmsnorm rows that take the variant's kernels, every dtype
sanshapes "$v" rmsnorm 2x300001 3x1000000
ONE_RESERVE=10 ONE_BUDGET=0.3
for c in fp32:256x262144 bf16:32x1048576 fp16:32x1048576 fp32:32x1048576; do
  dt=${c%%:*} sh=${c#*:}
  bench_abc rmsnorm $dt $sh var "$v"
done
finish
exit 0
