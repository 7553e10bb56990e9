#!/usr/bin/env bash
# Nsight Compute on the v9 final binary's wide-path cases (kernels/rowfused.cu
# wide_k; docs/PERFORMANCE.md "What bounds"): one profiled launch per case,
# clocks not locked, the sections of batch-lib.sh's ncu_bench plus the L2
# hit rate of the two reads, the details page as CSV per case.
#   bash scripts/capture/wide-ncu-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: wide-ncu-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
prof() { # OP DTYPE SHAPE
  local tag="$1-$2-$3"
  [ "$(left)" -gt 25 ] || return 0
  run "ncu-$tag.txt" 40 ncu --profile-from-start off --clock-control none \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy \
    --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --metrics lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum \
    -o "/tmp/ncu-$tag" -f \
    "$pf" --profile-range --bench --op "$1" --dtype "$2" --shape "$3" \
    --budget 0.3 --min-samples 3 --max-samples 30 --json "/tmp/ncu-$tag.json"
  if [ -f "/tmp/ncu-$tag.ncu-rep" ]; then
    ncu -i "/tmp/ncu-$tag.ncu-rep" --csv --page details >"$out/ncu-$tag-details.csv" 2>&1
  fi
}
prof softmax fp32 256x262144
prof rmsnorm_backward fp32 2048x32768
prof row_sum bf16 32x1048576
prof softmax bf16 32x1048576
prof rmsnorm fp32 256x262144
prof rmsnorm bf16 256x262144
prof row_sum fp32 256x262144
prof row_sum fp32 32x1048576
prof softmax bf16 256x262144
prof softmax_backward fp32 256x262144
finish
exit 0
