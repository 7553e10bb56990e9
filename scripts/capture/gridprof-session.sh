#!/usr/bin/env bash
# The grid path's per-batch time, step by step (docs/PERFORMANCE.md, v11):
# the experiment build cuda_portfolio-prof (hint-variants.sh
# prof=-DCPK_GRID_PROF=1: thread 0 of five blocks prints the clock64 cycles
# of each step of grid_k's batch loop) on every row op at 2^18 and 2^20
# columns with the grid path forced (CPK_GRID_MIN), then Nsight Compute's
# stall sampling of grid_k on two of them:
#   bash scripts/capture/gridprof-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: gridprof-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
pv=$var/cuda_portfolio-prof
gpu_csv gpu-before.csv
for sh in ${SHAPES:-256x262144 32x1048576}; do
  for op in row_sum softmax softmax_backward rmsnorm rmsnorm_backward; do
    for dt in ${DTYPES:-bf16 fp32}; do
      [ "$(left)" -gt 20 ] || break
      run "prof-$op-$dt-$sh.txt" 40 env CPK_GRID_MIN=131073 "$pv" --bench \
        --op $op --dtype $dt --shape $sh --variant fused --budget 0.2 \
        --json "$out/prof-$op-$dt-$sh.json"
    done
  done
done
for c in "softmax bf16" "row_sum bf16"; do
  set -- $c
  [ "$(left)" -gt 60 ] || break
  run "ncu-src-$1-$2.txt" 60 env CPK_GRID_MIN=131073 ncu --profile-from-start \
    off --clock-control none -k regex:grid_k -c 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section SourceCounters "$pv" --profile-range \
    --bench --op $1 --dtype $2 --shape 256x262144 --variant fused \
    --budget 0.1 --min-samples 3 --max-samples 5
done
finish
exit 0
