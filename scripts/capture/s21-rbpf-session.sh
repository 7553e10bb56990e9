#!/usr/bin/env bash
# Twenty-first session (docs/PERFORMANCE.md): rmsnorm_backward's fused_k
# configurations that do not stage the next row in shared memory (every one
# but fp32's at 4097-8192 columns) prefetch the group's next row, slot by
# slot, as each slot of this row is written (fused_pf's register prefetch,
# which softmax, softmax_backward and row_sum's wide clusters have; the same
# arithmetic in the same order). The new binary's checks first: its FUSED
# --test-only for rmsnorm_backward and its FUSED rmsnorm_backward smoke set
# under memcheck and racecheck; its --dump outputs against the build's (the
# same bits expected). Then old, new, old, new: --bench of rmsnorm_backward at
# 65536x1024, 16384x4096, 8192x8192 and 2048x32768 (changed but for fp32 at
# 8192 columns, the stage, and at 32768, wide_k: the controls), every dtype
# in one run per shape. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/s21-rbpf-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: s21-rbpf-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
n=$var/cuda_portfolio-new
VT_SEL="--op rmsnorm_backward" vtools new "$n" memcheck racecheck
bitscmp new "$n" rmsnorm_backward "300x1024 77x4096 33x8192 5000x1024"
ab() {
  bench_shapes "$1" "$2" rmsnorm_backward "65536x1024 16384x4096 8192x8192 2048x32768"
}
for p in 1 2; do
  ab old$p "$pf"
  ab new$p "$n"
done
finish_checks s21
exit 0
