#!/usr/bin/env bash
# The second half of v12 (docs/PERFORMANCE.md; kernels/rowfused.cu,
# CPK_FUSED_SHORT16): the 16-bit rows of 16385-32768 columns of rmsnorm
# (bit 32) and softmax (bit 64) on configuration 7 built for two blocks per
# SM, in one lease. The variant is a hint-variants.sh build of the tree:
#   s109=-DCPK_FUSED_SHORT16=109   (the default 13, plus 32 and 64)
# $pf is the tree's default build. The FUSED --test-only of both, the
# variant's smoke set and its rerouted shapes under memcheck and racecheck,
# then each case default / variant / default:
#   bash scripts/capture/short16b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: short16b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-${VARIANT:-s109}
gpu_csv gpu-before.csv
run test-only-default.txt 60 "$pf" --test-only --variant fused
vcheck variant "$v"
for op in softmax rmsnorm; do
  sanshapes "$v" $op 70x24576 6x30001
done
ONE_RESERVE=10 ONE_BUDGET=0.3
for op in softmax rmsnorm; do
  abc_grid $op "bf16 fp16" "2048x32768 8192x8192" var "$v"
done
finish
exit 0
