#!/usr/bin/env bash
# v34b (docs/PERFORMANCE.md): the cluster stage of the row reductions
# without a cluster barrier per reduction (-DCPK_CLU_PUSH=1: each rank
# pushes its partial into the others' inboxes with st.async on their
# mbarriers) beside the final binary, one call. The variant's FUSED
# --test-only, its FUSED smoke set under memcheck and racecheck, edge
# shapes of the clustered configurations under memcheck and racecheck;
# then rmsnorm_backward's benchmark set def / push / def, and def1 / push /
# def2 on the other benchmark cases that take clusters (the wide path's
# and fused_k's clustered configurations).
#   BIN=DIR VAR=DIR bash scripts/capture/v34b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v34b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vb="$var/cuda_portfolio-push"
run cuobjdump-push.txt 60 cuobjdump --dump-resource-usage "$vb"
VT_TLIM=60 VT_LIM=60 vtools push "$vb" memcheck racecheck
SAN_TAG=push sanshapes "$vb" rmsnorm_backward 7x20000 3x32768
SAN_TAG=push sanshapes "$vb" row_sum 3x200000 2x1048576
SAN_TAG=push sanshapes "$vb" softmax 3x200000
abc 60 def push "$vb" rmsnorm_backward
export ONE_BUDGET=0.4
abc_grid row_sum "bf16 fp32" "256x262144 32x1048576" push "$vb"
abc_grid softmax "fp32" "256x262144" push "$vb"
abc_grid softmax "bf16" "32x1048576" push "$vb"
finish
exit 0
