#!/usr/bin/env bash
# v7's cache hints (row stores per op: plain for softmax, rmsnorm_backward
# and rmsnorm's register-only configurations; row_sum's cp.async slots
# evict-first) against the same sources built with every store streaming and
# no cp.async policy (the v6b behaviour), on the GPU machine:
#   hint-variants.sh .carry/var v6hints="-DCPK_FUSED_ST_PLAIN=0 -DCPK_FUSED_CP_EF=0"
#   bash scripts/capture/hint7-session.sh OUTDIR [BUDGET_S]
# Checks first (self-test; --test-only and memcheck / racecheck on the smoke
# set of the four ops), then each op's benchmark set new, old, new.
set -u
out=${1:?usage: hint7-session.sh OUTDIR [BUDGET_S]}
budget=${2:-500}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 60 "$bin/cpk_selftest"
for op in row_sum softmax rmsnorm rmsnorm_backward; do
  run "test-only-$op.txt" 40 "$pf" --test-only --op $op
done
for tool in memcheck racecheck; do
  for op in row_sum softmax rmsnorm rmsnorm_backward; do
    run "sanitize-$tool-$op.txt" 60 compute-sanitizer --tool $tool \
      --error-exitcode 9 "$pf" --alloc exact --smoke --op $op
  done
done
for op in row_sum softmax rmsnorm rmsnorm_backward; do
  abc 50 new old "$var/cuda_portfolio-v6hints" $op
done
finish
exit 0
