#!/usr/bin/env bash
# After v20's final run: the skew path with three blocks an SM on 16 KiB
# segments ($var/cuda_portfolio-u4: -DCPK_SKEW_U=4 -DCPK_SKEW_MB=3, the
# lag and grid rules of v20) against the default (two blocks an SM, 32
# KiB), on the 17 cases the path takes; the variant's FUSED checks first.
#   BIN=DIR VAR=DIR bash scripts/capture/skew3-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skew3-session.sh OUTDIR [BUDGET_S]}
budget=${2:-180}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_TLIM=40 VT_LIM=30 VT_ENV=CPK_SKEW_MIN=1 vtools skewall-u4 \
  "$var/cuda_portfolio-u4" memcheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      bench_abc $op $dt $sh u4 "$var/cuda_portfolio-u4"
    done
  done
done
finish
exit 0
