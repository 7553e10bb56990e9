#!/usr/bin/env bash
# v18a (docs/PERFORMANCE.md; measured, not taken): FUSED's lag path
# (kernels/rowlag.cu) for softmax, softmax_backward and rmsnorm, on by
# default from 131073 columns in the build measured (commit bab0ad0; not in
# the tree since, its patch is with the evidence:
# results/h200/bounds/lag-2026-11-30T2153/v18a.patch.gz). One lease:
#  - the build's own --test-only (every variant), then every FUSED case of
#    those three ops through the lag path (CPK_LAG_MIN=1) under --test-only
#    and its FUSED smoke set under memcheck, racecheck, initcheck, synccheck;
#  - at 2^20 and 2^18 columns, each op and dtype: the default (the lag path)
#    / the same binary with it off (CPK_LAG=0: v17's path for the width) /
#    the default;
#  - the lag (CPK_LAG_EXTRA: the grid's resident blocks by default, 528 on
#    the H200) at 64 and 1056, bf16 and fp32 (their bench_abc's default
#    runs overwrite the first loop's def1/def2 files of those cases);
#  - at 2048x32768 (FUSED on chip, 0.83-0.85 for 16-bit), softmax and
#    rmsnorm: the default / the lag path forced (CPK_LAG_MIN=16385) / the default;
#  - Nsight Compute on lag_k at 32x1048576 and 256x262144, softmax bf16.
#   BIN=DIR bash scripts/capture/lag-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: lag-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only-default.txt 150 "$pf" --test-only
VT_TLIM=90 VT_ENV=CPK_LAG_MIN=1 vtools lagall "$pf" memcheck racecheck \
  initcheck synccheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      BA_ENV=CPK_LAG=0 bench_abc $op $dt $sh off "$pf"
    done
  done
done
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32; do
      BA_ENV=CPK_LAG_EXTRA=64 bench_abc $op $dt $sh x64 "$pf"
      BA_ENV=CPK_LAG_EXTRA=1056 bench_abc $op $dt $sh x1056 "$pf"
    done
  done
done
for op in softmax rmsnorm; do
  for dt in bf16 fp32 fp16; do
    BA_ENV=CPK_LAG_MIN=16385 bench_abc $op $dt 2048x32768 lag "$pf"
  done
done
NCU_K=lag_k ncu_one ncu-lag-softmax-bf16-32x1048576 "$pf" softmax bf16 \
  32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
NCU_K=lag_k ncu_one ncu-lag-softmax-bf16-256x262144 "$pf" softmax bf16 \
  256x262144 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
finish
exit 0
