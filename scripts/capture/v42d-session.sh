#!/usr/bin/env bash
# v42d (docs/PERFORMANCE.md): the skew and ring paths' row stores plain
# (`stp`: -DCPK_SKEW_ST_CS=0 -DCPK_RING_ST_CS=0, kernels/rowskew.cu, built
# on this tree with SOURCES=kernels/rowskew.cu
# scripts/capture/hint-variants.sh) against the build's default, which
# streams them (.cs). Checks: stp's FUSED --test-only and smoke set under
# memcheck and racecheck, with every FUSED case of the four skew ops
# through the skew path and its ring (CPK_SKEW_MIN=1), and its plain
# FUSED --test-only; then softmax, softmax_backward and rmsnorm at
# 256x262144 and 32x1048576 and rmsnorm_backward at 256x262144, every
# dtype, default / stp / default, two passes:
#   BIN=DIR VAR=DIR bash scripts/capture/v42d-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v42d-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
sp=$var/cuda_portfolio-stp
VT_ENV=CPK_SKEW_MIN=1 vtools stp-skewall "$sp" memcheck racecheck
run test-only-stp.txt 90 "$sp" --test-only --variant fused
ONE_BUDGET=0.3
for s in "" -p2; do
  for op in softmax_backward softmax rmsnorm; do
    BA_SUF=$s abc_grid $op "fp32 bf16 fp16" "256x262144 32x1048576" stp "$sp"
  done
  BA_SUF=$s abc_grid rmsnorm_backward "fp32 bf16 fp16" "256x262144" stp "$sp"
done
finish_checks v42d
exit 0
