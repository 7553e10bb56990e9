#!/usr/bin/env bash
# v34 (docs/PERFORMANCE.md): one call, the default build (ld_pol's inline
# load `asm volatile`, CPK_LDPOL_VOLATILE=1) beside two experiment builds
# of kernels/rowfused.cu and kernels/rowskew.cu: trim (-DCPK_RB_TRIM=1,
# rmsnorm_bwd's arithmetic in fewer instructions on every path) and nvol
# (-DCPK_LDPOL_VOLATILE=0, the code measured before v34). The checks:
# each build's resource usage; trim's rmsnorm_backward --test-only (every
# variant), its FUSED smoke set under memcheck, rmsnorm_backward on each
# of its paths' shapes under memcheck and racecheck; the default's FUSED
# smoke set under memcheck and the wide and skew paths' shapes under
# memcheck and racecheck. Then rmsnorm_backward's benchmark set as def /
# trim / nvol / def / trim / def, and nvol beside the default on the
# 2^18- and 2^20-wide rows of the other row ops (where the wide and skew
# kernels run); Nsight Compute on rmsnorm_backward bf16 8192x8192, def
# against trim, if time is left.
#   BIN=DIR VAR=DIR bash scripts/capture/v34-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v34-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
tr="$var/cuda_portfolio-trim"
nv="$var/cuda_portfolio-nvol"
run cuobjdump-def.txt 60 cuobjdump --dump-resource-usage "$pf"
for v in trim nvol; do
  run cuobjdump-$v.txt 60 cuobjdump --dump-resource-usage "$var/cuda_portfolio-$v"
done
run test-only-trim-rmsnorm_backward.txt 90 "$tr" --test-only --op rmsnorm_backward
run memcheck-smoke-trim.txt 60 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$tr" --alloc exact --smoke --variant fused
SAN_TAG=trim sanshapes "$tr" rmsnorm_backward 300x1024 37x8000 5x20000 \
  3x200000 2x1048576
run memcheck-smoke-def.txt 60 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$pf" --alloc exact --smoke --variant fused
SAN_TAG=def sanshapes "$pf" row_sum 3x200000 2x1048576
SAN_TAG=def sanshapes "$pf" softmax 3x200000 2x1048576
abc 60 def trim "$tr" rmsnorm_backward
run bench-rmsnorm_backward-nvol.txt 60 "$nv" --bench --op rmsnorm_backward \
  --json "$out/bench-rmsnorm_backward-nvol.json"
run bench-rmsnorm_backward-trim-b.txt 60 "$tr" --bench --op rmsnorm_backward \
  --json "$out/bench-rmsnorm_backward-trim-b.json"
run bench-rmsnorm_backward-def-3.txt 60 "$pf" --bench --op rmsnorm_backward \
  --json "$out/bench-rmsnorm_backward-def-3.json"
export ONE_BUDGET=0.4
for op in row_sum softmax softmax_backward rmsnorm; do
  abc_grid $op "bf16 fp16 fp32" "256x262144 32x1048576" nvol "$nv"
done
if [ "$(left)" -gt 70 ]; then
  NCU_K=fused_k ncu_one ncu-def-rmsbwd "$pf" rmsnorm_backward bf16 8192x8192 \
    SpeedOfLight InstructionStats SchedulerStats WarpStateStats
  NCU_K=fused_k ncu_one ncu-trim-rmsbwd "$tr" rmsnorm_backward bf16 8192x8192 \
    SpeedOfLight InstructionStats SchedulerStats WarpStateStats
fi
finish
exit 0
