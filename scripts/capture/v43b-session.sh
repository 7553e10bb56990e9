#!/usr/bin/env bash
# v43b (docs/PERFORMANCE.md; written as v42f, adapted to v43's defaults
# before it ran): v42d's reading tested with Nsight Compute: DRAM bytes
# read and written and the L2 hit rate of each store form of skew_k
# (softmax_backward fp32 256x262144; default streaming, `skp` plain) and
# of ring_k (rmsnorm fp32 256x262144; default plain since v43, `rcs`
# streaming), built here after `cmake --build --preset linux` by
#   SOURCES=kernels/rowskew.cu bash scripts/capture/hint-variants.sh DIR \
#     skp=-DCPK_SKEW_ST_CS=0 rcs=-DCPK_RING_ST_CS=1
# and run on the GPU machine as
#   BIN=DIR VAR=DIR bash scripts/capture/v43b-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v43b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
export NCU_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,gpu__time_duration.sum
for b in def:$pf skp:$var/cuda_portfolio-skp; do
  NCU_K=skew_k ncu_one "ncu-${b%%:*}-softmax_backward-fp32-256x262144" \
    "${b#*:}" softmax_backward fp32 256x262144 SpeedOfLight
done
for b in def:$pf rcs:$var/cuda_portfolio-rcs; do
  NCU_K=ring_k ncu_one "ncu-${b%%:*}-rmsnorm-fp32-256x262144" \
    "${b#*:}" rmsnorm fp32 256x262144 SpeedOfLight
done
finish
exit 0
