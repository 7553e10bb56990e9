#!/usr/bin/env bash
# v42e (docs/PERFORMANCE.md): the wide and grid paths' row stores plain
# (`gwp`: -DCPK_WIDE_ST_CS=0 -DCPK_GRID_ST_CS=0, kernels/rowfused.cu's
# macros, built on this tree with scripts/capture/hint-variants.sh)
# against the build's default, which streams them (.cs). In the
# benchmark set only rmsnorm_backward takes these paths (fp32 2048x32768:
# wide_k; 32x1048576: grid_k). Checks: gwp's FUSED --test-only and smoke
# set under memcheck and racecheck with every FUSED case through the grid
# path (CPK_GRID_MIN=1), its plain FUSED rmsnorm_backward --test-only, and
# rmsnorm_backward fp32 at 100x32768 (the wide path) under memcheck; then
# rmsnorm_backward fp32 2048x32768 and every dtype at 32x1048576, default
# / gwp / default, three passes:
#   BIN=DIR VAR=DIR bash scripts/capture/v42e-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v42e-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
gp=$var/cuda_portfolio-gwp
VT_ENV=CPK_GRID_MIN=1 vtools gwp-gridall "$gp" memcheck racecheck
VT_SEL="--op rmsnorm_backward" vtools gwp "$gp"
run memcheck-gwp-rmsnorm_backward-100x32768.txt 60 compute-sanitizer \
  --tool memcheck --error-exitcode 9 "$gp" --alloc exact \
  --op rmsnorm_backward --dtype fp32 --shape 100x32768
ONE_BUDGET=0.3
for s in "" -p2 -p3; do
  BA_SUF=$s bench_abc rmsnorm_backward fp32 2048x32768 gwp "$gp"
  BA_SUF=$s abc_grid rmsnorm_backward "fp32 bf16 fp16" "32x1048576" gwp "$gp"
done
finish_checks v42e
exit 0
