#!/usr/bin/env bash
# v40 (docs/PERFORMANCE.md): the FUSED configuration list swept again on
# today's kernels for the cases under 0.90 that fused_k takes, through the
# variant fk ($VAR/cuda_portfolio-fk, -DCPK_FCFG_KNOB=1: the environment's
# CPK_FCFG=N puts every row configuration N may take on N). Each case:
# the build ($BIN), fk with each N, the build again. Then fk's FUSED
# --test-only of each op with each N tried (every row the configuration
# holds, on it). The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v40-session.sh OUTDIR [BUDGET_S]
# (run on 2026-12-03 13:24 UTC: bounds/v40-2026-12-03T1324, with OUTDIR
# /tmp/v40 and BUDGET_S 470; the variant: SOURCES=kernels/rowfused.cu bash
# scripts/capture/hint-variants.sh DIR fk=-DCPK_FCFG_KNOB=1)
set -u
out=${1:?usage: v40-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
fk=$var/cuda_portfolio-fk
ONE_RESERVE=120
sweep() { # op dtype shape N...
  local op=$1 dt=$2 sh=$3 n
  shift 3
  bench_one def1 "$pf" $op $dt $sh CPK_NONE=1
  for n in "$@"; do bench_one "c$n" "$fk" $op $dt $sh "CPK_FCFG=$n"; done
  bench_one def2 "$pf" $op $dt $sh CPK_NONE=1
}
sweep rmsnorm fp32 2048x32768 12 14
sweep rmsnorm bf16 2048x32768 10 12
sweep softmax bf16 2048x32768 10 14
sweep row_sum fp32 2048x32768 12 14
sweep row_sum bf16 2048x32768 10
sweep row_sum bf16 8192x8192 6 7
sweep row_sum bf16 16384x4096 5 6
sweep row_sum bf16 65536x1024 1 2 3 27
sweep rmsnorm_backward bf16 16384x4096 5 6
sweep rmsnorm_backward bf16 8192x8192 6 20
sweep rmsnorm_backward bf16 65536x1024 2 3
sweep rmsnorm bf16 8192x8192 6
sweep softmax bf16 8192x8192 6
for t in rmsnorm:10 rmsnorm:12 rmsnorm:14 rmsnorm:6 softmax:10 softmax:14 \
  softmax:6 row_sum:1 row_sum:2 row_sum:3 row_sum:5 row_sum:6 row_sum:7 \
  row_sum:10 row_sum:12 row_sum:14 row_sum:27 rmsnorm_backward:2 \
  rmsnorm_backward:3 rmsnorm_backward:5 rmsnorm_backward:6 \
  rmsnorm_backward:20; do
  op=${t%%:*} n=${t#*:}
  run "test-only-fk-$op-$n.txt" 60 env CPK_FCFG=$n "$fk" --test-only \
    --variant fused --op $op
done
finish_checks v40
exit 0
