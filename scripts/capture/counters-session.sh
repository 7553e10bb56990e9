#!/usr/bin/env bash
# Nsight Compute (clocks not locked) on one launch per benchmark case of
# every row op in every dtype, and of the copy, on the build in BIN (the
# counters table of docs/PERFORMANCE.md, "The final binary's counters"),
# on the GPU machine:
#   BIN=build/linux/bin bash scripts/capture/counters-session.sh OUTDIR [BUDGET_S]
# The sections of batch-lib's ncu_bench (speed of light, memory workload,
# occupancy, launch statistics, warp states, scheduler), the details page
# as CSV per op and dtype, and each profiled run's JSON; scripts/capture/ncu-table.py turns them and a
# timed bench JSON into the table. bounds8-session.sh did the same for
# v8's binary. Packs OUTDIR (without the .ncu-rep files) into
# OUTDIR.tar.gz.
set -u
out=${1:?usage: counters-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
ncu_row_ops
# the profiled runs' own JSON (which cases each launch belongs to)
cp /tmp/ncu-*.json "$out/" 2>/dev/null
finish
exit 0
