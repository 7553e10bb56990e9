#!/usr/bin/env bash
# v46b (docs/PERFORMANCE.md), after v46: where the other row kernels that
# miss 0.90 spend their stall cycles. v46's counters put the whole of
# v44b's block-size effect on rmsnorm_backward's 1024-wide rows in one
# reason, the warps waiting at a block barrier; this call takes the same
# per-reason counters (Nsight Compute's WarpStateStats section and the raw
# smsp__average_warps_issue_stalled_*_per_issue_active) on the final run's
# build for the register-only kernels whose groups reduce each row across
# warps with a barrier (rmsnorm_backward and row_sum at 4096 and 8192
# 16-bit columns: configurations 3 and 5; rmsnorm_backward's cluster of
# two 512-thread blocks at 32768), on row_sum's 16-lane groups at 1024
# (configuration 0, in-kernel 0.89 against 0.97 at 4096), and on the
# shared-memory-slot kernels of 16-bit softmax and rmsnorm at 32768
# columns (0.84); bf16, one profiled launch each, clocks as found.
#   BIN=DIR bash scripts/capture/v46b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v46b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for c in rmsnorm_backward:16384x4096 rmsnorm_backward:8192x8192 \
  rmsnorm_backward:2048x32768 row_sum:65536x1024 row_sum:16384x4096 \
  row_sum:8192x8192 softmax:2048x32768 rmsnorm:2048x32768; do
  [ "$(left)" -gt 25 ] || continue
  op=${c%%:*} sh=${c#*:}
  ncu_stalls "ncu-$op-bf16-$sh" "$pf" "$op" bf16 "$sh"
done
finish
exit 0
