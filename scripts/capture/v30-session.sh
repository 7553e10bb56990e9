#!/usr/bin/env bash
# v30 (docs/PERFORMANCE.md): more warps per SM for rmsnorm_backward's rows
# that run 16 warps an SM, and row_sum's fp32 1024-wide rows on v29b's
# configuration 27. Two experiment builds of kernels/rowfused.cu (at
# 00027a2, or with results/h200/bounds/v30-2026-12-02T0550/v30ab.patch.gz
# applied: CPK_RB16 and CPK_RB8K are not in the tree since):
#   v30x: -DCPK_RB16=1 -DCPK_RB8K=1 -DCPK_RS128=1 (16-bit rmsnorm_backward
#         rows of 513-1024 columns on 128 threads of 1 slot a row, 8 blocks
#         an SM; fp32 rows of 4097-8192 columns on clusters of two
#         512-thread blocks of 2 slots, 2 blocks an SM; fp32 row_sum rows of
#         513-1024 columns on configuration 27)
#   v30y: -DCPK_RB16=2 -DCPK_RB8K=2 (the same 16-bit rows on 64 threads of
#         2 slots, 16 blocks an SM; the same fp32 rows on one 1024-thread
#         block of 2 slots)
# One call: each variant's resource usage (cuobjdump), its rmsnorm_backward
# (and v30x's row_sum) --test-only, its FUSED smoke set under memcheck, the
# moved rows at edge shapes under memcheck and racecheck, then def1 /
# v30x / v30y / def2 on the moved benchmark cases and a control.
#   BIN=DIR VAR=DIR bash scripts/capture/v30-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v30-session.sh OUTDIR [BUDGET_S]}
budget=${2:-280}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vx="$var/cuda_portfolio-v30x"
vy="$var/cuda_portfolio-v30y"
for v in v30x v30y; do
  b="$var/cuda_portfolio-$v"
  run "cuobjdump-$v.txt" 60 cuobjdump --dump-resource-usage "$b"
  run "test-only-$v-rmsnorm_backward.txt" 60 "$b" --test-only --op rmsnorm_backward
  run "memcheck-smoke-$v.txt" 45 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$b" --alloc exact --smoke --variant fused
  SAN_TAG=$v sanshapes "$b" rmsnorm_backward 300x1024 7x513 33x1000 \
    300x8192 5x4100 37x8000
done
run test-only-v30x-row_sum.txt 60 "$vx" --test-only --op row_sum
SAN_TAG=v30x sanshapes "$vx" row_sum 300x1024 7x513 33x1000
export ONE_BUDGET=0.4
bench_abc rmsnorm_backward bf16 65536x1024 v30x "$vx" v30y "$vy"
bench_abc rmsnorm_backward fp16 65536x1024 v30x "$vx" v30y "$vy"
bench_abc rmsnorm_backward fp32 8192x8192 v30x "$vx" v30y "$vy"
BA_SUF=b bench_abc rmsnorm_backward fp32 8192x8192 v30x "$vx" v30y "$vy"
bench_abc row_sum fp32 65536x1024 v30x "$vx"
BA_SUF=b bench_abc row_sum fp32 65536x1024 v30x "$vx"
BA_SUF=b bench_abc rmsnorm_backward bf16 65536x1024 v30x "$vx" v30y "$vy"
bench_abc rmsnorm_backward fp32 16384x4096 v30x "$vx"
finish
exit 0
