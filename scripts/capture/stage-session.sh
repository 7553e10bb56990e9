#!/usr/bin/env bash
# v14a: fused_k's register-slot configurations stage the group's next row in
# shared memory by cp.async while the current row is computed
# (kernels/rowfused.cu, CPK_FUSED_STAGE; docs/PERFORMANCE.md, versions
# v14a), one lease. The variant is a hint-variants.sh build with every op's
# bit set:
#   stage=-DCPK_FUSED_STAGE=31
# $pf is the default build. The variant's FUSED --test-only and its FUSED
# smoke set under memcheck and racecheck; Nsight Compute's instruction and
# scheduler sections on the variant's rmsnorm_backward row kernel at bf16
# 8192x8192 (beside the default's in bounds/dw2-2026-11-30T1025); then
# default / variant / default for rmsnorm_backward up to 32768 columns in
# every dtype, and for the other row ops (persistent when staged) up to
# 8192 columns in bf16 and fp32:
#   BIN=DIR bash scripts/capture/stage-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: stage-session.sh OUTDIR [BUDGET_S]}
budget=${2:-450}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-stage
gpu_csv gpu-before.csv
vtools stage "$v" memcheck racecheck
ncu_one ncu-instr-stage-rmsbwd-bf16-8192x8192 "$v" rmsnorm_backward bf16 \
  8192x8192 InstructionStats WarpStateStats SchedulerStats SpeedOfLight \
  LaunchStats Occupancy
ONE_RESERVE=10 ONE_BUDGET=0.3
abc_grid rmsnorm_backward "bf16 fp16 fp32" \
  "65536x1024 16384x4096 8192x8192 2048x32768" stage "$v"
for op in softmax rmsnorm softmax_backward row_sum; do
  abc_grid $op "bf16 fp32" "65536x1024 16384x4096 8192x8192" stage "$v"
done
finish
exit 0
