#!/usr/bin/env bash
# v35 (docs/PERFORMANCE.md): v34b's push taken for fused_k's clustered
# configurations (CPK_CLU_PUSH=1, the default since v35; the wide path
# keeps its cluster barrier). One call before the final run, the build
# ($BIN, the final run's) beside three variants ($VAR): nopush
# (-DCPK_CLU_PUSH=0, 5d00b94's kernels), pusha (-DCPK_CLU_PUSH=2, the wide
# path pushing too, v34b as measured) and stage16 (-DCPK_FUSED_STAGE=16:
# rmsnorm_backward's register-slot configurations staging the group's next
# row, v14a's experiment, with the push). Checks first: the build's
# clustered fused_k shapes under memcheck and racecheck, stage16's FUSED
# --test-only and smoke set under memcheck; then def / nopush / def on the
# three benchmark cases that take fused_k's clusters, def / stage16 / def
# on rmsnorm_backward's set, def / pusha / def on the wide path's row_sum
# cases. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v35-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v35-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
# rmsnorm_backward 16-bit 16385-32768 (configuration 20, clusters of 2),
# softmax_backward fp32 16385-32768 (configuration 11, clusters of 2)
SAN_TAG=v35 sanshapes "$pf" rmsnorm_backward 7x20000 3x32768
SAN_TAG=v35 sanshapes "$pf" softmax_backward 5x20000 3x32768
VT_TLIM=60 VT_LIM=60 vtools stage16 "$var/cuda_portfolio-stage16" memcheck
export ONE_BUDGET=0.5
bench_abc rmsnorm_backward fp16 2048x32768 nopush "$var/cuda_portfolio-nopush"
bench_abc rmsnorm_backward bf16 2048x32768 nopush "$var/cuda_portfolio-nopush"
bench_abc softmax_backward fp32 2048x32768 nopush "$var/cuda_portfolio-nopush"
abc 60 def stage16 "$var/cuda_portfolio-stage16" rmsnorm_backward
export ONE_BUDGET=0.4
abc_grid row_sum "bf16 fp32" "32x1048576 256x262144" pusha \
  "$var/cuda_portfolio-pusha"
finish_checks v35
exit 0
