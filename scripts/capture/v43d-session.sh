#!/usr/bin/env bash
# v43d (docs/PERFORMANCE.md): whether the ring's plain stores win by the
# L2's state at the kernel's start. Nsight Compute on ring_k, the default
# (plain stores since v43) and `rcs` (-DCPK_RING_ST_CS=1, streaming; built
# as in v43b-session.sh), rmsnorm and softmax fp32 256x262144, twice each:
# with ncu's default --cache-control all (caches flushed and invalidated
# before the launch, as in v43b) and with --cache-control none (the
# profiled launch, `--profile-range`'s, follows the warm-up launches with
# no flush: the L2 holds the previous launch's lines, its output's dirty
# among them):
#   BIN=DIR VAR=DIR bash scripts/capture/v43d-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v43d-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
export NCU_METRICS=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,gpu__time_duration.sum
for rep in 1 2; do
  for cc in all none; do
    for op in rmsnorm softmax; do
      for b in def:$pf rcs:$var/cuda_portfolio-rcs; do
        NCU_XARGS="--cache-control $cc" NCU_K=ring_k ncu_one \
          "ncu-$cc-${b%%:*}-$op-fp32-256x262144-r$rep" "${b#*:}" $op fp32 \
          256x262144 SpeedOfLight
      done
    done
  done
done
finish
exit 0
