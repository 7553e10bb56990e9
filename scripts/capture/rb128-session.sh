#!/usr/bin/env bash
# v29b (docs/PERFORMANCE.md): rmsnorm_backward's fp32 rows of 513-1024
# columns on a block of 128 threads a row, 2 slots a thread, built for 8
# blocks per SM (the variant rb128: -DCPK_RB128=1, configuration 27) instead
# of a warp a row of 8 slots in one 256-thread block per SM. One call: the
# variant's rmsnorm_backward --test-only, its FUSED smoke set under
# memcheck, its rmsnorm_backward at 300x1024, 33x1000, 7x513 and 5000x1024
# under memcheck and racecheck, then def1 / rb128 / def2 twice on fp32
# 65536x1024, once on the rows it leaves alone (fp32 16384x4096, bf16
# 65536x1024).
#   BIN=DIR VAR=DIR bash scripts/capture/rb128-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: rb128-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
vb="$var/cuda_portfolio-rb128"
run test-only-rb128.txt 60 "$vb" --test-only --op rmsnorm_backward
run memcheck-smoke-rb128.txt 45 compute-sanitizer --tool memcheck \
  --error-exitcode 9 "$vb" --alloc exact --smoke --variant fused
sanshapes "$vb" rmsnorm_backward 300x1024 33x1000 7x513 5000x1024
export ONE_BUDGET=0.4
bench_abc rmsnorm_backward fp32 65536x1024 rb128 "$vb"
BA_SUF=b bench_abc rmsnorm_backward fp32 65536x1024 rb128 "$vb"
bench_abc rmsnorm_backward fp32 16384x4096 rb128 "$vb"
bench_abc rmsnorm_backward bf16 65536x1024 rb128 "$vb"
finish
exit 0
