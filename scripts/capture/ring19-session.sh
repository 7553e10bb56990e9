#!/usr/bin/env bash
# v26c as the default (docs/PERFORMANCE.md), the final run's first call,
# before its evidence batch: the build's FUSED cases through the ring
# wherever it can take them, with no fallback (CPK_SKEW_MIN=1
# CPK_SKEW_RING=2: softmax_backward too, whose fp32 50x131080 smoke case
# has more segments a block than the stats warp has cells, so the cells
# are reused) under --test-only, and its FUSED smoke set that way under
# memcheck, racecheck, initcheck and synccheck.
#   BIN=build/linux/bin bash scripts/capture/ring19-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring19-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ring-sw "$pf" memcheck racecheck initcheck synccheck
finish
exit 0
