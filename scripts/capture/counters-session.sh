#!/usr/bin/env bash
# Nsight Compute (clocks not locked) on one launch per benchmark case of
# every row op in every dtype, and of the copy, on the build in BIN (the
# counters table of docs/PERFORMANCE.md, "The final binary's counters"),
# on the GPU machine:
#   BIN=build/linux/bin bash scripts/capture/counters-session.sh OUTDIR [BUDGET_S]
# The sections of batch-lib's ncu_bench (speed of light, memory workload,
# occupancy, launch statistics, warp states, scheduler), the details page
# as CSV per op and dtype, and each profiled run's JSON;
# scripts/capture/ncu-table.py turns them and a timed bench JSON into the
# table. bounds8-session.sh did the same for v8's binary. With
# $VAR/cuda_portfolio-tail present (v37b's variant, -DCPK_DW_TAIL=1), its
# rmsnorm_backward bf16 and fp32 sets too, as ncu-tail-*. Packs OUTDIR
# (without the .ncu-rep files) into OUTDIR.tar.gz.
set -u
out=${1:?usage: counters-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
# v37b's variant, where it was slower (VAR: its binary), first: ncu_as
# writes the default's file names and then renames them, so after
# ncu_row_ops it took the default's rmsnorm_backward bf16 and fp32 files
# with it (bounds/counters-2026-12-03T1144, whose call2/ has them again)
if [ -x "$var/cuda_portfolio-tail" ]; then
  ncu_as tail "$var/cuda_portfolio-tail" --op rmsnorm_backward --dtype bf16
  ncu_as tail "$var/cuda_portfolio-tail" --op rmsnorm_backward --dtype fp32
fi
ncu_row_ops
finish
exit 0
