#!/usr/bin/env bash
# v18b (docs/PERFORMANCE.md; measured, not taken): FUSED's lag path
# (kernels/rowlag.cu) as a persistent grid with cp.async into shared
# memory, on by default from 131073 columns for softmax, softmax_backward
# and rmsnorm in the build measured (commit bf00658; not in the tree since:
# v18a's patch, results/h200/bounds/lag-2026-11-30T2153/v18a.patch.gz, then
# v18b's, bounds/lag2-2026-11-30T2205/v18b.patch.gz), and the variant u4
# (-DCPK_LAG_U=4: 16 KiB segments, four blocks an SM) in $var. One lease:
#  - FUSED --test-only of the build; every FUSED case of the three ops
#    through the lag path (CPK_LAG_MIN=1) under --test-only and its FUSED
#    smoke set under memcheck, racecheck, initcheck, synccheck (u4:
#    --test-only and memcheck);
#  - at 2^20 and 2^18 columns, each op and dtype: the default (the lag
#    path) / the same binary with it off (CPK_LAG=0: the path v17 took) /
#    u4 / the default; bf16 and fp32: the lag (CPK_LAG_EXTRA, default the
#    resident blocks: 264) at 132 and 1056;
#  - at 2048x32768, softmax and rmsnorm: the default (FUSED on chip) / the
#    lag path forced (CPK_LAG_MIN=16385), the build's and u4's / the
#    default;
#  - Nsight Compute on lag_k at 32x1048576 and 256x262144, softmax bf16.
#   BIN=DIR VAR=DIR bash scripts/capture/lag2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: lag2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-480}
. "$(dirname "$0")/batch-lib.sh"
u4=$var/cuda_portfolio-u4
gpu_csv gpu-before.csv
run test-only-fused-default.txt 60 "$pf" --test-only --variant fused
VT_ENV=CPK_LAG_MIN=1 vtools lagall "$pf" memcheck racecheck initcheck \
  synccheck
VT_ENV=CPK_LAG_MIN=1 vtools lagall-u4 "$u4" memcheck
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
      bench_one off "$pf" $op $dt $sh CPK_LAG=0
      bench_one u4 "$u4" $op $dt $sh CPK_NONE=1
      case $dt in fp16) ;; *)
        bench_one x132 "$pf" $op $dt $sh CPK_LAG_EXTRA=132
        bench_one x1056 "$pf" $op $dt $sh CPK_LAG_EXTRA=1056 ;;
      esac
      bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
    done
  done
done
for op in softmax rmsnorm; do
  for dt in bf16 fp32 fp16; do
    BA_ENV=CPK_LAG_MIN=16385 bench_abc $op $dt 2048x32768 lag "$pf" u4 "$u4"
  done
done
for sh in 32x1048576 256x262144; do
  NCU_K=lag_k ncu_one ncu-lag-softmax-bf16-$sh "$pf" softmax bf16 $sh \
    SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
    WarpStateStats SchedulerStats
done
finish
exit 0
