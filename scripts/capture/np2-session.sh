#!/usr/bin/env bash
# v28b, second call (docs/PERFORMANCE.md): the one-tile-a-block copy grids
# at more block sizes (the variant np2, the v28b patch with its tail fixed
# for rows shorter than a vector and an add of one vector a thread in a
# grid of every vector, CPK_ADD_V=1; CPK_COPY_V: 7, 128 threads x 1
# vector; 10, 256 x 1; 11, 512 x 1; 12, 128 x 2) beside v28a's kernels.
# One call: --test-only and the smoke set under memcheck of the copy (7)
# and the add, then copy bf16 2^26 and fp32 2^28: def1 / 7 / 10 / 11 /
# 12 / def2; add fp32 and bf16 2^28: def1 / np / def2.
#   BIN=DIR VAR=DIR bash scripts/capture/np2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: np2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
nb="$var/cuda_portfolio-np2"
for v in 7 10 11 12; do
  run test-only-np2-copy-v$v.txt 30 env CPK_COPY_V=$v "$nb" --test-only --op copy
done
run test-only-np2-add.txt 30 env CPK_ADD_V=1 "$nb" --test-only --op add
run memcheck-smoke-np2.txt 40 env CPK_COPY_V=7 CPK_ADD_V=1 compute-sanitizer \
  --tool memcheck --error-exitcode 9 "$nb" --alloc exact --smoke --variant vector
for c in "bf16 67108864" "fp32 268435456"; do
  set -- $c
  flat_one def1 "$pf" copy $1 $2
  for v in 7 10 11 12; do flat_one v$v "$nb" copy $1 $2 CPK_COPY_V=$v; done
  flat_one def2 "$pf" copy $1 $2
done
for dt in fp32 bf16; do
  flat_one def1 "$pf" add $dt 268435456
  flat_one np "$nb" add $dt 268435456 CPK_ADD_V=1
  flat_one def2 "$pf" add $dt 268435456
done
gpu_csv gpu-after-bench.csv
finish
exit 0
