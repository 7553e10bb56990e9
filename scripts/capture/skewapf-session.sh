#!/usr/bin/env bash
# v22a (docs/PERFORMANCE.md): the skew path (kernels/rowskew.cu) with A's
# loads of step s + 1 issued at the start of step s as cp.async copies
# into two shared-memory buffers (cuda_portfolio-apf, -DCPK_SKEW_APF=1;
# softmax, softmax_backward and rmsnorm) against the default: slower in
# every case, not taken; the macro is gone from kernels/rowskew.cu, its
# code kept as results/h200/bounds/skewapf-2026-12-01T0311/v22a.patch
# (`git apply` it on 105023d to build the variant again). One call:
#  - every FUSED case of the skew ops through the skew path
#    (CPK_SKEW_MIN=1) on the variant under --test-only and its FUSED smoke
#    set under memcheck, racecheck, initcheck, synccheck;
#  - the same on 7 blocks (CPK_SKEW_G=7: rows straddling steps) under
#    --test-only, memcheck and racecheck;
#  - the variant's --test-only of softmax, softmax_backward and rmsnorm
#    (the set's wide rows on the skew path);
#  - at 2^20 and 2^18 columns, each of those ops and dtypes: the default /
#    apf / the default;
#  - Nsight Compute on skew_k of the variant, softmax bf16 32x1048576.
#   BIN=DIR VAR=DIR bash scripts/capture/skewapf-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: skewapf-session.sh OUTDIR [BUDGET_S]}
budget=${2:-330}
. "$(dirname "$0")/batch-lib.sh"
va=$var/cuda_portfolio-apf
gpu_csv gpu-before.csv
VT_ENV=CPK_SKEW_MIN=1 vtools apf "$va" memcheck racecheck initcheck synccheck
VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_G=7" vtools apfg7 "$va" memcheck racecheck
for op in softmax softmax_backward rmsnorm; do
  run test-only-apf-$op.txt 40 "$va" --test-only --op $op
done
ONE_BUDGET=0.3
ONE_RESERVE=20
for sh in 32x1048576 256x262144; do
  for op in softmax softmax_backward rmsnorm; do
    for dt in bf16 fp32 fp16; do
      bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
      bench_one apf "$va" $op $dt $sh CPK_NONE=1
      bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
    done
  done
done
NCU_K=skew_k ncu_one ncu-apf-softmax-bf16-32x1048576 "$va" softmax bf16 \
  32x1048576 SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats \
  WarpStateStats
finish
exit 0
