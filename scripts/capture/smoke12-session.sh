#!/usr/bin/env bash
# The smoke set with 3x6000 and 2x24576 (src/portfolio/pf_sets.c, after
# v12's final run) under the four tools of the sanitize stage, exact
# allocator, on the GPU machine, one lease; $pf is a build of that commit:
#   BIN=DIR bash scripts/capture/smoke12-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: smoke12-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run smoke.txt 60 "$pf" --alloc exact --smoke
for tool in memcheck racecheck initcheck synccheck; do
  extra=
  [ "$tool" = memcheck ] && extra="--leak-check full"
  run "$tool-smoke.txt" 120 compute-sanitizer --tool $tool $extra \
    --error-exitcode 9 "$pf" --alloc exact --smoke
done
finish
exit 0
