#!/usr/bin/env bash
# v33c (docs/PERFORMANCE.md): v33a's .L2::256B prefetch-size qualifier on
# every FUSED row load again, its inline loads now `asm volatile` (v33a's
# were not, and the compiler issued them ahead of their bounds test:
# memcheck's 125 errors), so that the hint's effect is measured apart
# from that code change. One call: the variant's FUSED --test-only, its
# FUSED smoke set under memcheck, edge shapes (rmsnorm 5x33 and 64x1024
# among them) under memcheck and racecheck, then def / l2pfv / def on the
# benchmark sets of rmsnorm, row_sum, softmax and softmax_backward.
#   BIN=DIR VAR=DIR bash scripts/capture/v33c-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v33c-session.sh OUTDIR [BUDGET_S]}
budget=${2:-340}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vb="$var/cuda_portfolio-l2pfv"
run cuobjdump-l2pfv.txt 60 cuobjdump --dump-resource-usage "$vb"
VT_TLIM=90 vcheck l2pfv "$vb"
SAN_TAG=l2pfv sanshapes "$vb" rmsnorm 5x33 64x1024 33x4097
SAN_TAG=l2pfv sanshapes "$vb" row_sum 300x2000
for op in rmsnorm row_sum softmax softmax_backward; do
  abc 60 def l2pfv "$vb" $op
done
finish
exit 0
