#!/usr/bin/env bash
# v49b (docs/PERFORMANCE.md, "The final binary's counters"): Nsight Compute
# (clocks not locked) on one launch per benchmark case of rmsnorm_backward
# in bf16 and fp16, the sections of batch-lib's ncu_bench, on a build of
# b37d4fe's kernels: the counters table's two 16-bit 65536x1024 rows were
# 7832bed's configuration 1, which v45 replaced by configuration 28 (four
# 128-thread blocks an SM). scripts/capture/ncu-table.py turns the folder
# and a timed bench JSON into the table's rows.
#   BIN=build/linux/bin bash scripts/capture/v49b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v49b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
ncu_bench 60 --op rmsnorm_backward --dtype bf16
ncu_bench 60 --op rmsnorm_backward --dtype fp16
finish
exit 0
