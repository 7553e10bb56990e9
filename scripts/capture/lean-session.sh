#!/usr/bin/env bash
# rmsnorm_backward's lean arithmetic (v6b, docs/PERFORMANCE.md) against the
# fused_k it replaces, on the GPU machine: the new binaries in BIN (default
# .carry/bin), the previous build (0ba933f, whose CPK_FUSED_PIPE=0 is the
# fused_k of d69ff09) as VAR/cuda_portfolio-pipe (default .carry/var):
#   bash scripts/capture/lean-session.sh OUTDIR [BUDGET_S]
# The kernels' self-test, rmsnorm_backward's verification set and the
# sanitizer on it, the resource usage, then the rmsnorm_backward benchmark
# set: new, previous, new again (the spread of the two new runs is the
# lease's noise).
set -u
out=${1:?usage: lean-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 120 "$bin/cpk_selftest"
run test-only.txt 60 "$pf" --test-only --op rmsnorm_backward
for tool in memcheck racecheck synccheck initcheck; do
  run "sanitize-$tool.txt" 60 compute-sanitizer --tool $tool --error-exitcode 9 \
    "$pf" --alloc exact --smoke --op rmsnorm_backward
done
run resource-usage.txt 30 cuobjdump --dump-resource-usage "$pf"
sel="--bench --op rmsnorm_backward"
run bench-new-1.txt 50 "$pf" $sel --json "$out/bench-new-1.json"
run bench-old.txt 50 env CPK_FUSED_PIPE=0 "$var/cuda_portfolio-pipe" $sel --json "$out/bench-old.json"
run bench-new-2.txt 50 "$pf" $sel --json "$out/bench-new-2.json"
finish
exit 0
