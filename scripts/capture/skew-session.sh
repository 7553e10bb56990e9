#!/usr/bin/env bash
# v20a (docs/PERFORMANCE.md): FUSED's skew path (kernels/rowskew.cu) for
# softmax, softmax_backward and rmsnorm, on by default from 131073 columns
# in the build measured (commit 5ccf8d6, where the lag was the steps a row
# spans plus CPK_SKEW_L, default 1, and the variant u4 existed: the knob
# means another thing since 0b8cf76, two steps plus CPK_SKEW_L). One lease:
#  - the build's own --test-only (every variant), then every FUSED case of
#    those three ops through the skew path (CPK_SKEW_MIN=1) under
#    --test-only and its FUSED smoke set under memcheck, racecheck,
#    initcheck, synccheck;
#  - at 2^20 and 2^18 columns, each op and dtype: the default (the skew
#    path) / the same binary with it off (CPK_SKEW=0: v17's path for the
#    width) / the default;
#  - bf16 and fp32 there: the lag at its least (CPK_SKEW_L=0: the steps a
#    row spans) and two steps longer (CPK_SKEW_L=3), and the variant u4
#    ($var/cuda_portfolio-u4: 16 KiB segments, 3 blocks an SM), after its
#    own check;
#  - at 2048x32768 (FUSED on chip), softmax and rmsnorm: the default / the
#    skew path forced (CPK_SKEW_MIN=16385) / the default;
#  - Nsight Compute on skew_k at 32x1048576 and 256x262144, softmax bf16,
#    and rmsnorm fp32 256x262144.
#   BIN=DIR bash scripts/capture/skew-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skew-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only-default.txt 150 "$pf" --test-only
VT_TLIM=90 VT_ENV=CPK_SKEW_MIN=1 vtools skewall "$pf" memcheck racecheck \
  initcheck synccheck
VT_TLIM=90 VT_ENV=CPK_SKEW_MIN=1 vtools skewall-u4 "$var/cuda_portfolio-u4" \
  memcheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      BA_ENV=CPK_SKEW=0 bench_abc $op $dt $sh off "$pf"
    done
  done
done
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32; do
      BA_ENV=CPK_SKEW_L=0 bench_abc $op $dt $sh l0 "$pf"
      BA_ENV=CPK_SKEW_L=3 bench_abc $op $dt $sh l3 "$pf"
      bench_abc $op $dt $sh u4 "$var/cuda_portfolio-u4"
    done
  done
done
for op in softmax rmsnorm; do
  for dt in bf16 fp32 fp16; do
    BA_ENV=CPK_SKEW_MIN=16385 bench_abc $op $dt 2048x32768 skew "$pf"
  done
done
NCU_K=skew_k ncu_one ncu-skew-softmax-bf16-32x1048576 "$pf" softmax bf16 \
  32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
NCU_K=skew_k ncu_one ncu-skew-softmax-bf16-256x262144 "$pf" softmax bf16 \
  256x262144 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
NCU_K=skew_k ncu_one ncu-skew-rmsnorm-fp32-256x262144 "$pf" rmsnorm fp32 \
  256x262144 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
finish
exit 0
