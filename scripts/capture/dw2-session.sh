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
run test-only-dw2.txt 60 "$v" --test-only --variant fused
for tool in memcheck racecheck; do
  run $tool-smoke-dw2.txt 90 compute-sanitizer --tool $tool \
    --error-exitcode 9 "$v" --alloc exact --smoke --variant fused
done
ncu_vs dw2 "$v" --op rmsnorm_backward --dtype bf16
run ncu-instr-rmsbwd-bf16-8192x8192.txt 60 ncu --profile-from-start off \
  --clock-control none -k regex:fused_k --section InstructionStats \
  --section SourceCounters --section WarpStateStats \
  --section ComputeWorkloadAnalysis --section LaunchStats \
  -o /tmp/ncu-instr -f "$pf" --profile-range --bench \
  --op rmsnorm_backward --dtype bf16 --shape 8192x8192 --budget 0.3 \
  --min-samples 3 --max-samples 30 --json /tmp/ncu-instr.json
[ -f /tmp/ncu-instr.ncu-rep ] &&
  ncu -i /tmp/ncu-instr.ncu-rep --csv --page details \
    >"$out/ncu-instr-rmsbwd-bf16-8192x8192-details.csv" 2>&1
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp32 fp16" \
  "65536x1024 16384x4096 8192x8192 2048x32768" dw2 "$v" dw2b "$v"
finish
exit 0
