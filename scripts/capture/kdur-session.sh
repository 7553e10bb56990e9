#!/usr/bin/env bash
# What a timed sample holds beside the kernel (docs/PERFORMANCE.md, v29a):
# Nsight Compute's duration and DRAM bytes of the profiled launch (every
# kernel of it: rmsnorm_backward's dw kernel too) of the final binary on
# the bf16 8192x8192 rows of every row op and on the copy of the same
# 2^26 elements, with ncu's cache flush before the launch (cc-all: a clean
# L2) and without (cc-none: the L2 as the warm-up's last launch left it,
# full of dirty lines), beside the same binary's event-timed medians.
#   BIN=DIR bash scripts/capture/kdur-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: kdur-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
m=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
for cc in all none; do
  for c in "copy 1x67108864" "row_sum 8192x8192" "softmax 8192x8192" \
    "softmax_backward 8192x8192" "rmsnorm 8192x8192" \
    "rmsnorm_backward 8192x8192"; do
    set -- $c
    b=--bench # the copy at 2^26 elements is not a --bench shape
    [ "$1" = copy ] && b=
    run "ncu-$1-cc$cc.txt" 40 ncu --profile-from-start off \
      --clock-control none --cache-control $cc --metrics $m --csv "$pf" \
      --profile-range $b --op $1 --dtype bf16 --shape $2 \
      --budget 0.2 --min-samples 3 --max-samples 10 \
      --json "$out/ncu-$1-cc$cc.json"
  done
done
finish
exit 0
