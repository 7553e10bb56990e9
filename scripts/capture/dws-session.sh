#!/usr/bin/env bash
# rmsnorm_backward's dw accumulators in shared memory (v5b,
# docs/PERFORMANCE.md) against the default build, on the GPU machine, with
# the default binary in BIN (default .carry/bin) and the variant of
# scripts/capture/hint-variants.sh beside it (cuda_portfolio-dws:
# -DCPK_FUSED_DW_SMEM=1):
#   bash scripts/capture/dws-session.sh OUTDIR [BUDGET_S]
# --test-only with the variant, then the rmsnorm_backward benchmark set:
# default, variant, default again (the spread between the two default runs
# is the lease's noise).
set -u
out=${1:?usage: dws-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run test-only-dws.txt 90 "$pf-dws" --test-only
run default-1.txt 40 "$pf" --bench --op rmsnorm_backward --json "$out/default-1.json"
run dws.txt 40 "$pf-dws" --bench --op rmsnorm_backward --json "$out/dws.json"
run default-2.txt 40 "$pf" --bench --op rmsnorm_backward --json "$out/default-2.json"
finish
exit 0
