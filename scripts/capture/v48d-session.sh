#!/usr/bin/env bash
# v48d (docs/PERFORMANCE.md): rmsnorm_backward's first row loaded ahead
# of w. The variant early (-DCPK_RB_EARLY=1, kernels/rowfused.cu; an
# experiment macro, 0 by default) issues each fused_k group's first row
# before the block loads and converts w into shared memory, so the two
# round trips to device memory at the start of every block overlap. Its
# checks first: rmsnorm_backward's FUSED --test-only and smoke set under
# memcheck and racecheck, and its --dump outputs against the build's at
# four shapes (the same bits expected); then def / early / def on
# rmsnorm_backward at the four standard shapes of up to 32768 columns in
# every dtype, twice (-p1, -p2). The last line says whether every check
# passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v48d-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v48d-session.sh OUTDIR [BUDGET_S]}
budget=${2:-360}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
e=$var/cuda_portfolio-early
VT_SEL="--op rmsnorm_backward" VT_TLIM=60 VT_LIM=40 vtools early "$e" memcheck racecheck
bitscmp early "$e" rmsnorm_backward "300x1024 77x4096 33x8192 9x32768"
ONE_RESERVE=20
for p in 1 2; do
  BA_SUF=-p$p abc_grid rmsnorm_backward "bf16 fp16 fp32" \
    "65536x1024 16384x4096 8192x8192 2048x32768" c1 "$e"
done
finish_checks v48d
exit 0
