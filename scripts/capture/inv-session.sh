#!/usr/bin/env bash
# v15b: fused_k's rmsnorm and rmsnorm_backward scale their row sums by
# 1 / cols computed once on the host instead of dividing by cols in every
# row (CPK_INV_COLS; docs/PERFORMANCE.md, versions v15b), one lease after
# v15's final run. The variant is kernels/rowfused.cu of a4b5436 with
# results/h200/bounds/inv-2026-11-30T1627/v15b.patch applied (the macro is
# not in the tree: not taken), compiled with the build's own command plus
# -DCPK_INV_COLS=1 and linked as hint-variants.sh does:
#   $VAR/cuda_portfolio-inv
# $pf is the v15 final binary. The variant's FUSED --test-only and its
# FUSED smoke set under memcheck, then rmsnorm_backward in every dtype and
# 16-bit rmsnorm up to 32768 columns default / variant / variant / default:
#   BIN=DIR VAR=DIR bash scripts/capture/inv-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: inv-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-inv
gpu_csv gpu-before.csv
vcheck inv "$v"
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16 fp32" \
  "65536x1024 16384x4096 8192x8192 2048x32768" inv "$v" inv2 "$v"
abc_grid rmsnorm "bf16 fp16" "16384x4096 8192x8192 2048x32768" \
  inv "$v" inv2 "$v"
finish
exit 0
