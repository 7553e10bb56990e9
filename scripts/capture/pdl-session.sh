#!/usr/bin/env bash
# v13c: rmsnorm_backward's dw kernel as a programmatic dependent launch of
# the row kernel, its partial rows loaded 16 at a time over 32 strands
# (kernels/rowfused.cu, CPK_DW_PDL; docs/PERFORMANCE.md, versions v13c), one
# lease. The variant is a hint-variants.sh build:
#   pdl=-DCPK_DW_PDL=1
# $pf is the default build. The variant's FUSED --test-only, its FUSED smoke
# set under memcheck, racecheck and synccheck, Nsight Compute on one launch
# per rmsnorm_backward bf16 benchmark case of the default and of the
# variant (the two kernels' durations), then each rmsnorm_backward case up
# to 32768 columns (the ones with a dw kernel) default / variant / variant
# / default:
#   BIN=DIR bash scripts/capture/pdl-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: pdl-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-pdl
gpu_csv gpu-before.csv
run test-only-pdl.txt 60 "$v" --test-only --variant fused
for tool in memcheck racecheck synccheck; do
  run $tool-smoke-pdl.txt 90 compute-sanitizer --tool $tool \
    --error-exitcode 9 "$v" --alloc exact --smoke --variant fused
done
ncu_vs pdl "$v" --op rmsnorm_backward --dtype bf16
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp32 fp16" \
  "65536x1024 16384x4096 8192x8192 2048x32768" pdl "$v" pdl2 "$v"
finish
exit 0
