#!/usr/bin/env bash
# v51 (docs/PERFORMANCE.md): fused_k's softmax in one group reduction a
# row. The variants (kernels/rowfused.cu, CPK_SM_ONLINE, 0 by default):
# on1 (-DCPK_SM_ONLINE=1) for the groups of a block or a cluster, on2
# (-DCPK_SM_ONLINE=2) for every group. Checks first: each variant's FUSED
# softmax --test-only, on2's softmax smoke set under memcheck and
# racecheck (on2 runs every kernel on1 changes, and its warp groups too);
# then def / on1 / on2 / def on softmax at the four standard shapes that
# fused_k takes (1024-32768 columns) in every dtype, PASSES times
# (default 3: -p1, -p2, -p3). The last line says whether every check
# passed. Build the variants here first:
#   bash scripts/capture/hint-variants.sh .carry/var \
#     on1=-DCPK_SM_ONLINE=1 on2=-DCPK_SM_ONLINE=2
#   BIN=DIR VAR=DIR [PASSES=N] bash scripts/capture/v51-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v51-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
VT_SEL="--op softmax" VT_TLIM=60 vtools on1 "$var/cuda_portfolio-on1"
VT_SEL="--op softmax" VT_TLIM=60 VT_LIM=60 vtools on2 "$var/cuda_portfolio-on2" \
  memcheck racecheck
ONE_RESERVE=20
for p in $(seq 1 "${PASSES:-3}"); do
  BA_SUF=-p$p abc_grid softmax "bf16 fp16 fp32" \
    "65536x1024 16384x4096 8192x8192 2048x32768" \
    on1 "$var/cuda_portfolio-on1" on2 "$var/cuda_portfolio-on2"
done
finish_checks v51
exit 0
