#!/usr/bin/env bash
# v13d: rmsnorm_backward's dw kernel with 8 columns a block and 64 strands a
# column (kernels/rowfused.cu, CPK_DW_V2; docs/PERFORMANCE.md, versions
# v13d), one lease. The variant is a hint-variants.sh build:
#   dw2=-DCPK_DW_V2=1
# $pf is the default build. The variant's FUSED --test-only and its FUSED
# smoke set under memcheck and racecheck; Nsight Compute on one launch per
# rmsnorm_backward bf16 benchmark case of the default and of the variant
# (the dw kernels' durations); the default's row kernel at bf16 8192x8192
# with the instruction and source-counter sections (where its issue slots
# go); then each rmsnorm_backward case up to 32768 columns default /
# variant / variant / default:
#   BIN=DIR bash scripts/capture/dw2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: dw2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-dw2
gpu_csv gpu-before.csv
vtools dw2 "$v" memcheck racecheck
ncu_vs dw2 "$v" --op rmsnorm_backward --dtype bf16
ncu_one ncu-instr-rmsbwd-bf16-8192x8192 "$pf" rmsnorm_backward bf16 8192x8192 \
  InstructionStats SourceCounters WarpStateStats ComputeWorkloadAnalysis \
  LaunchStats
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp32 fp16" \
  "65536x1024 16384x4096 8192x8192 2048x32768" dw2 "$v" dw2b "$v"
finish
exit 0
