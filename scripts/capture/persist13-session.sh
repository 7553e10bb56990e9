#!/usr/bin/env bash
# softmax_backward's prefetching persistent FUSED clusters (the 2^18 rows,
# and the 16-bit 2^20 rows) against one cluster per row
# (CPK_FUSED_PERSIST=0, the switch in the binary; docs/PERFORMANCE.md,
# versions v13a, which found persistence costing the block-per-row
# configurations 6-9 %), one lease, the default build only: each case
# default / CPK_FUSED_PERSIST=0 / default:
#   BIN=DIR bash scripts/capture/persist13-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: persist13-session.sh OUTDIR [BUDGET_S]}
budget=${2:-120}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ONE_RESERVE=10 ONE_BUDGET=0.3
for sh in 256x262144 32x1048576; do
  for dt in fp32 bf16 fp16; do
    bench_one def1 "$pf" softmax_backward $dt $sh CPK_NONE=1
    bench_one np "$pf" softmax_backward $dt $sh CPK_FUSED_PERSIST=0
    bench_one def2 "$pf" softmax_backward $dt $sh CPK_NONE=1
  done
done
finish
exit 0
