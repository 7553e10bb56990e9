#!/usr/bin/env bash
# v29a's counters (docs/PERFORMANCE.md): Nsight Compute's DRAM bytes read
# and written and duration of fused_k's profiled launch, the default build
# against the variant nef (-DCPK_NC_EF=1: the read-only row loads
# evict-first in the L2), rmsnorm and softmax_backward bf16 8192x8192,
# with ncu's own cache flush before the launch (cc-all: a clean, empty L2)
# and without it (cc-none: the L2 as the warm-up's last launch left it,
# full of that launch's dirty output lines, as the benchmark's write flush
# leaves it full of its own).
#   BIN=DIR VAR=DIR bash scripts/capture/ef2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ef2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
m=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
for cc in all none; do
  for c in "rmsnorm 8192x8192" "softmax_backward 8192x8192"; do
    set -- $c
    for b in "def $pf" "nef $var/cuda_portfolio-nef"; do
      set -- $1 $2 $b
      run "ncu-$3-$1-cc$cc.txt" 40 ncu --profile-from-start off \
        --clock-control none --cache-control $cc -k regex:fused_k \
        --metrics $m --csv "$4" --profile-range --bench --op $1 \
        --dtype bf16 --shape $2 --budget 0.1 --min-samples 3 \
        --max-samples 5 --json /tmp/ncu-ef.json
    done
  done
done
finish
exit 0
