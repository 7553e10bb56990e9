#!/usr/bin/env bash
# The grid path's v11 (docs/PERFORMANCE.md) on the GPU machine, in one lease:
# the new kernels' verification with every FUSED case through the grid path
# (CPK_GRID_MIN=1) and their FUSED smoke set under the four sanitizer tools
# the same way; then each wide benchmark case (every row op, 2^18 and 2^20
# columns) from the measured v10 binary ($pf: its default, the plan's pick)
# and from the variants with the grid path forced (CPK_GRID_MIN=131073, every
# op), base / variants / base (the per-step cycle counts are
# gridprof-session.sh's).
#   bash scripts/capture/grid11-session.sh OUTDIR [BUDGET_S]
# VARIANTS: the builds in $var (default "v11 v11p"), the first one checked;
# BASE, BASE_ENV: the base binary (default $pf) and its environment (default
# none: the plan's pick); DTYPES: the dtypes (default all three).
set -u
out=${1:?usage: grid11-session.sh OUTDIR [BUDGET_S]}
budget=${2:-560}
. "$(dirname "$0")/batch-lib.sh"
vs=${VARIANTS:-v11 v11p}
v1=$var/cuda_portfolio-${vs%% *}
gpu_csv gpu-before.csv
run test-only-fused.txt 60 "$v1" --test-only --variant fused
gridall "$v1" ${TOOLS:-memcheck racecheck synccheck initcheck}
ONE_RESERVE=60 ONE_BUDGET=0.3
for sh in 256x262144 32x1048576; do
  for op in rmsnorm_backward rmsnorm softmax softmax_backward row_sum; do
    for dt in ${DTYPES:-bf16 fp32 fp16}; do
      bench_one base1 "${BASE:-$pf}" $op $dt $sh ${BASE_ENV:-CPK_NONE=1}
      for v in $vs; do
        bench_one "$v" "$var/cuda_portfolio-$v" $op $dt $sh CPK_GRID_MIN=131073
      done
      bench_one base2 "${BASE:-$pf}" $op $dt $sh ${BASE_ENV:-CPK_NONE=1}
    done
  done
done
finish
exit 0
