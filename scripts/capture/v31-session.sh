#!/usr/bin/env bash
# v31a (docs/PERFORMANCE.md): v5b's switch tried again on today's kernels:
# rmsnorm_backward's dw accumulators in each thread's own shared-memory
# cells instead of registers, its 4-slot 128- and 256-thread configurations
# built for 768 threads per SM (the variant dws: -DCPK_FUSED_DW_SMEM=1).
# One call: the variant's resource usage, its rmsnorm_backward --test-only,
# its FUSED smoke set under memcheck, rmsnorm_backward at edge shapes of the
# moved configurations under memcheck and racecheck, then def1 / dws / def2
# on the rows it moves (16-bit 1024-8192 columns, fp32 4096) and on two it
# leaves (fp32 1024 and 8192 columns).
#   BIN=DIR VAR=DIR bash scripts/capture/v31-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v31-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vb="$var/cuda_portfolio-dws"
run cuobjdump-dws.txt 60 cuobjdump --dump-resource-usage "$vb"
run test-only-dws.txt 60 "$vb" --test-only --op rmsnorm_backward
run memcheck-smoke-dws.txt 45 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$vb" --alloc exact --smoke --variant fused
sanshapes "$vb" rmsnorm_backward 300x1024 33x4097 9x5000 300x4096 5x8192
export ONE_BUDGET=0.4
for dt in bf16 fp16; do
  for sh in 65536x1024 16384x4096 8192x8192; do
    bench_abc rmsnorm_backward $dt $sh dws "$vb"
  done
done
bench_abc rmsnorm_backward fp32 16384x4096 dws "$vb"
bench_abc rmsnorm_backward fp32 65536x1024 dws "$vb"
bench_abc rmsnorm_backward fp32 8192x8192 dws "$vb"
BA_SUF=b bench_abc rmsnorm_backward bf16 16384x4096 dws "$vb"
BA_SUF=b bench_abc rmsnorm_backward bf16 8192x8192 dws "$vb"
BA_SUF=b bench_abc rmsnorm_backward fp16 8192x8192 dws "$vb"
finish
exit 0
