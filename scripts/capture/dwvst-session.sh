#!/usr/bin/env bash
# v14b: rmsnorm_backward's row kernels write their dw partial rows with
# 16-byte stores (kernels/rowfused.cu, CPK_FUSED_DW_VST; docs/PERFORMANCE.md,
# versions v14b), one lease; and the check of v14a's build after its fix
# (the staged softmax rows now read the mask). The variants are
# hint-variants.sh builds:
#   dwvst=-DCPK_FUSED_DW_VST=1 stage=-DCPK_FUSED_STAGE=31
# $pf is the default build. dwvst's FUSED --test-only and its FUSED smoke set
# under memcheck, stage's FUSED --test-only; Nsight Compute on one launch per
# rmsnorm_backward bf16 benchmark case of dwvst (the default's, the same
# code, are in bounds/dw2-2026-11-30T1025); then every rmsnorm_backward
# case default / dwvst / dwvst / default:
#   BIN=DIR bash scripts/capture/dwvst-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: dwvst-session.sh OUTDIR [BUDGET_S]}
budget=${2:-330}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-dwvst
gpu_csv gpu-before.csv
vcheck dwvst "$v"
run test-only-stage.txt 60 "$var/cuda_portfolio-stage" --test-only \
  --variant fused
ncu_as dwvst "$v" --op rmsnorm_backward --dtype bf16
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16 fp32" \
  "65536x1024 16384x4096 8192x8192 2048x32768 256x262144 32x1048576" \
  dwvst "$v" dwvstb "$v"
finish
exit 0
