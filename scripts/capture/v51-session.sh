#!/usr/bin/env bash
# v51 and v51b (docs/PERFORMANCE.md): fused_k's softmax in one group
# reduction a row. The variants (kernels/rowfused.cu, CPK_SM_ONLINE, 0 by
# default): on1 (-DCPK_SM_ONLINE=1) for the groups of a block or a
# cluster, on2 (=2) for every group, on3 (=3, v51b) for the groups of a
# block, the warps' maxima and sums by two butterflies without exps.
# Checks first: each variant's FUSED softmax --test-only, and the softmax
# smoke set of the variant named by SAN (default on2: it runs every
# kernel on1 changes, and its warp groups too) under memcheck and
# racecheck; then def / each variant / def on softmax at the four
# standard shapes that fused_k takes (1024-32768 columns) in every dtype,
# PASSES times (default 3: -p1, -p2, -p3). The last line says whether
# every check passed. The experiment is out of the tree (not taken):
# apply it, then build the variants here first:
#   zcat results/h200/bounds/v51b-2026-12-04T1853/v51b.patch.gz | git apply
#   bash scripts/capture/hint-variants.sh .carry/var \
#     on1=-DCPK_SM_ONLINE=1 on2=-DCPK_SM_ONLINE=2 on3=-DCPK_SM_ONLINE=3
#   BIN=DIR VAR=DIR [VARIANTS="on1 on2"] [SAN=on2] [PASSES=N] \
#     bash scripts/capture/v51-session.sh OUTDIR [BUDGET_S]
# (v51's call: the defaults; v51b's: VARIANTS="on1 on3" SAN=on3.)
set -u
out=${1:?usage: v51-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vs=()
for v in ${VARIANTS:-on1 on2}; do
  tools=
  [ "$v" != "${SAN:-on2}" ] || tools="memcheck racecheck"
  VT_SEL="--op softmax" VT_LIM=60 vtools "$v" "$var/cuda_portfolio-$v" $tools
  vs+=("$v" "$var/cuda_portfolio-$v")
done
ONE_RESERVE=20
for p in $(seq 1 "${PASSES:-3}"); do
  BA_SUF=-p$p abc_grid softmax "bf16 fp16 fp32" \
    "65536x1024 16384x4096 8192x8192 2048x32768" "${vs[@]}"
done
finish_checks v51
exit 0
