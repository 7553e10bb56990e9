#!/usr/bin/env bash
# Nsight Compute (clocks as found) on v12's final binary ($pf): one profiled
# launch per softmax benchmark case in bf16 and fp16 (the configurations
# CPK_FUSED_SHORT16 moved: 1024 and 8192 columns), the details page as CSV
# (docs/PERFORMANCE.md, versions v12):
#   bash scripts/capture/short16ncu-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: short16ncu-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ncu_bench 60 --op softmax --dtype bf16
ncu_bench 60 --op softmax --dtype fp16
finish
exit 0
