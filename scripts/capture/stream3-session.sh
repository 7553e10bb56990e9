#!/usr/bin/env bash
# After v16d (docs/PERFORMANCE.md): whether the stream path's gather waits
# on its words queued behind the SM's own stage loads. The experiment
# builds differ from $pf (v16d, 4 stages, 3 blocks an SM) only in the
# stages a block and the blocks an SM: s3 (3 stages: one round loading
# ahead instead of two), s6 (6 stages, 2 blocks an SM: four ahead), and
# prof3 / prof6, the same with CPK_STREAM_PROF=1 (clock64 per step,
# four blocks); two cases, each default path / v16d / s3 / s6 / default,
# then the two profiling builds (v16d's own: bounds/stream-*T1803):
#   BIN=DIR VAR=DIR bash scripts/capture/stream3-session.sh OUTDIR [BUDGET_S]
# $pf and the variants: fed92c9 with results/h200/bounds/
# stream-2026-11-30T1803/v16d.patch applied (the path is not in the tree).
set -u
out=${1:?usage: stream3-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
S=CPK_STREAM_MIN=131073
gpu_csv gpu-before.csv
ONE_BUDGET=0.3
for c in "softmax bf16 32x1048576" "rmsnorm fp32 256x262144"; do
  set -- $c
  bench_one def1 "$pf" $1 $2 $3 CPK_NONE=1
  bench_one strm "$pf" $1 $2 $3 $S
  for v in s3 s6; do
    bench_one $v "$var/cuda_portfolio-$v" $1 $2 $3 $S
  done
  bench_one def2 "$pf" $1 $2 $3 CPK_NONE=1
  for v in prof3 prof6; do
    run "$v-$1-$2-$3.txt" 20 env $S "$var/cuda_portfolio-$v" --bench \
      --op $1 --dtype $2 --shape $3 --budget 0.2 --max-samples 10
  done
done
finish
exit 0
