#!/usr/bin/env bash
# v13b: rmsnorm_backward's fused_k grid with CPK_GX times the row groups
# (kernels/rowfused.cu, CPK_FUSED_GX; docs/PERFORMANCE.md, versions v13b):
# more blocks than are resident at once, each with its own dw partial row,
# so that the block scheduler spreads the rows instead of a fixed
# persistent share per block (v13a: persistence cost softmax, row_sum and
# rmsnorm 6-9 %). One lease. The variant is a hint-variants.sh build:
#   gx=-DCPK_FUSED_GX=1
# $pf is the default build. The variant's FUSED --test-only and smoke set
# under memcheck at CPK_GX=4, then each case: the default, the variant at
# CPK_GX=1 (the default's grid), 2, 4, 8, the default again:
#   BIN=DIR bash scripts/capture/gx-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: gx-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
v=$var/cuda_portfolio-gx
gpu_csv gpu-before.csv
run test-only-gx4.txt 60 env CPK_GX=4 "$v" --test-only --variant fused
run memcheck-smoke-gx4.txt 90 env CPK_GX=4 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$v" --alloc exact --smoke --variant fused
ONE_RESERVE=10 ONE_BUDGET=0.3
for c in fp32:65536x1024 bf16:65536x1024 fp32:8192x8192 bf16:8192x8192 \
  bf16:16384x4096 fp16:65536x1024 fp32:16384x4096 bf16:2048x32768; do
  dt=${c%%:*} sh=${c#*:}
  bench_one def1 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
  for g in 1 2 4 8; do
    bench_one gx$g "$v" rmsnorm_backward $dt $sh CPK_GX=$g
  done
  bench_one def2 "$pf" rmsnorm_backward $dt $sh CPK_NONE=1
done
finish
exit 0
