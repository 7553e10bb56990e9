#!/usr/bin/env bash
# rmsnorm_backward's 16-bit rows of 2049-8192 columns on configurations of
# 2 slots a thread built for 1024 threads per SM (kernels/rowfused.cu,
# CPK_FUSED_SHORT16 bit 128; docs/PERFORMANCE.md, versions v12e), one
# lease. The variant is a hint-variants.sh build of the tree:
#   s141=-DCPK_FUSED_SHORT16=141   (the default 13, plus 128)
# $pf is the final binary. The variant's FUSED --test-only, its smoke set
# and its rmsnorm_backward at the rerouted widths under memcheck and
# racecheck, then each case default / variant / default:
#   bash scripts/capture/rmsbwd2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: rmsbwd2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-${VARIANT:-s141}
gpu_csv gpu-before.csv
vcheck variant "$v"
sanshapes "$v" rmsnorm_backward 33x4097 9x5000 300x4096
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16" "16384x4096 8192x8192 65536x1024" \
  var "$v"
finish
exit 0
