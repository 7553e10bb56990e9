#!/usr/bin/env bash
# v42f (docs/PERFORMANCE.md): v42d's reading tested with Nsight Compute:
# DRAM bytes read and written and the L2 hit rate of skew_k
# (softmax_backward fp32 256x262144) and ring_k (rmsnorm fp32 256x262144)
# for the default build and `stp` (-DCPK_SKEW_ST_CS=0 -DCPK_RING_ST_CS=0,
# built as in v42d-session.sh):
#   BIN=DIR VAR=DIR bash scripts/capture/v42f-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v42f-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
sp=$var/cuda_portfolio-stp
export NCU_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for b in def:$pf stp:$sp; do
  NCU_K=skew_k ncu_one "ncu-${b%%:*}-softmax_backward-fp32-256x262144" \
    "${b#*:}" softmax_backward fp32 256x262144 SpeedOfLight
  NCU_K=ring_k ncu_one "ncu-${b%%:*}-rmsnorm-fp32-256x262144" \
    "${b#*:}" rmsnorm fp32 256x262144 SpeedOfLight
done
finish
exit 0
