#!/usr/bin/env bash
# v14c: the 16-bit rmsnorm_backward fused_k kernels exchange their dw
# partial columns between a warp's lanes before v14b's 16-byte stores, so
# that every 32-byte sector is written whole by one store instruction
# (kernels/rowfused.cu, CPK_FUSED_DW_XCH; docs/PERFORMANCE.md, versions
# v14c), one lease. The variant is a hint-variants.sh build:
#   xch=-DCPK_FUSED_DW_XCH=1
# $pf is the default build (v14b). The variant's FUSED --test-only and its
# FUSED smoke set under memcheck, then the 16-bit rmsnorm_backward cases up
# to 32768 columns default / variant / variant / default:
#   BIN=DIR bash scripts/capture/xch-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: xch-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-xch
gpu_csv gpu-before.csv
vcheck xch "$v"
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16" \
  "65536x1024 16384x4096 8192x8192 2048x32768" xch "$v" xch2 "$v"
finish
exit 0
