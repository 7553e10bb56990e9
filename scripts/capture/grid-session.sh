#!/usr/bin/env bash
# The grid path (v10, rowfused.cu grid_k) on the GPU machine
# (docs/PERFORMANCE.md): its verification and sanitizer runs, then each wide
# benchmark case with the path on (the default) and off (CPK_FUSED_GRID=0:
# the v9 kernels of the same binary), on / off / on, in one lease:
#   bash scripts/capture/grid-session.sh OUTDIR [BUDGET_S]
# CPK_GRID_MIN=1 pushes every FUSED verification case through the grid path
# (rows of every width, chunks empty, partial and whole). TEST_ARGS: more
# words for the first --test-only (v10b's run: --variant fused); TOOLS:
# the sanitizer tools (default all four).
set -u
out=${1:?usage: grid-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only.txt 200 "$pf" --test-only ${TEST_ARGS:-}
run test-only-gridall.txt 60 env CPK_GRID_MIN=1 "$pf" --test-only \
  --variant fused
for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
  run "$tool-smoke-fused.txt" 90 compute-sanitizer --tool $tool \
    --error-exitcode 9 "$pf" --alloc exact --smoke --variant fused
done
run resource-usage.txt 20 cuobjdump --dump-resource-usage "$pf"
# VARIANTS: names of experiment builds in $var (cuda_portfolio-NAME), each
# run between the default's two; DTYPES: the dtypes (default all three)
for sh in 32x1048576 256x262144; do
  for op in rmsnorm_backward rmsnorm softmax softmax_backward row_sum; do
    for dt in ${DTYPES:-bf16 fp32 fp16}; do
      bench_one grid1 "$pf" $op $dt $sh CPK_NONE=1
      bench_one v9 "$pf" $op $dt $sh CPK_FUSED_GRID=0
      for v in ${VARIANTS:-}; do
        bench_one "$v" "$var/cuda_portfolio-$v" $op $dt $sh CPK_NONE=1
      done
      bench_one grid2 "$pf" $op $dt $sh CPK_NONE=1
    done
  done
done
finish
exit 0
