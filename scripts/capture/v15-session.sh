#!/usr/bin/env bash
# v15a: the block stage of the row groups' reductions over log2(NW)
# butterfly levels instead of 5 (kernels/rowfused.cu, CPK_RED_NW;
# docs/PERFORMANCE.md, versions v15a), built with v14c's exchanged dw
# stores (CPK_FUSED_DW_XCH), one lease (both macros off by default then,
# on since v15). The variants are hint-variants.sh
# builds:
#   xch=-DCPK_FUSED_DW_XCH=1                   (v14c's, $VAR/cuda_portfolio-xch)
#   v15="-DCPK_FUSED_DW_XCH=1 -DCPK_RED_NW=1"  ($VAR/cuda_portfolio-v15)
# $pf is the default build (v14b). v15's FUSED --test-only and its FUSED
# smoke set under memcheck and racecheck; the SASS of three kernels of
# both builds (cuobjdump, for the instruction counts of
# docs/PERFORMANCE.md); Nsight Compute's instruction counts on the
# rmsnorm_backward bf16 8192x8192 row kernel of both; then the 16-bit
# rmsnorm_backward cases default / xch / v15 / default, and the block-group
# cases of the other ops (4096-32768 columns) default / v15 / v15 /
# default:
#   BIN=DIR VAR=DIR bash scripts/capture/v15-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v15-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
x=$var/cuda_portfolio-xch
v=$var/cuda_portfolio-v15
# sass_of NAME BIN PATTERN: the SASS of BIN's first kernel whose mangled
# name contains PATTERN into $out/sass-NAME.txt
sass_of() {
  local f
  f=$(cuobjdump -res-usage "$2" 2>/dev/null |
    grep -o "Function [^ :]*$3[^ :]*" | head -1 | cut -d' ' -f2)
  run "sass-$1.txt" 30 cuobjdump -sass -fun "${f:-none}" "$2"
}
gpu_csv gpu-before.csv
VT_LIM=60 vtools v15 "$v" memcheck racecheck
rb5=fused_kI13__nv_bfloat16Li4ELi256ELi256ELi4ELi0ELi1ELi2E
sm5=fused_kI13__nv_bfloat16Li1ELi256ELi256ELi4ELi0ELi1ELi4E
rb1=fused_kI13__nv_bfloat16Li4ELi256ELi32ELi4ELi0ELi1ELi2E
sass_of def-rmsbwd-bf16-cfg5 "$pf" $rb5
sass_of v15-rmsbwd-bf16-cfg5 "$v" $rb5
sass_of def-softmax-bf16-cfg5 "$pf" $sm5
sass_of v15-softmax-bf16-cfg5 "$v" $sm5
sass_of def-rmsbwd-bf16-warp "$pf" $rb1
ncu_one ncu-instr-def "$pf" rmsnorm_backward bf16 8192x8192 \
  InstructionStats WarpStateStats SpeedOfLight
ncu_one ncu-instr-v15 "$v" rmsnorm_backward bf16 8192x8192 \
  InstructionStats WarpStateStats SpeedOfLight
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16" "16384x4096 8192x8192 2048x32768" \
  xch "$x" v15 "$v"
abc_grid softmax "bf16 fp16" "16384x4096 8192x8192 2048x32768" \
  v15 "$v" v15b "$v"
abc_grid rmsnorm "bf16 fp16" "16384x4096 8192x8192 2048x32768" \
  v15 "$v" v15b "$v"
abc_grid row_sum "bf16" "16384x4096 8192x8192 2048x32768" v15 "$v" v15b "$v"
abc_grid rmsnorm_backward "fp32" "16384x4096 8192x8192" v15 "$v" v15b "$v"
abc_grid softmax_backward "bf16" "8192x8192" v15 "$v" v15b "$v"
abc_grid rmsnorm_backward "bf16" "65536x1024" v15 "$v" v15b "$v"
abc_grid softmax "fp32" "8192x8192" v15 "$v" v15b "$v"
abc_grid row_sum "fp32" "8192x8192" v15 "$v" v15b "$v"
finish
exit 0
