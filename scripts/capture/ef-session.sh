#!/usr/bin/env bash
# v29a (docs/PERFORMANCE.md): the FUSED row kernels' read-only loads with an
# evict-first L2 policy (variant nef: -DCPK_NC_EF=1, the loads of
# softmax, softmax_backward, rmsnorm and rmsnorm_backward, register slots
# and cp.async cells) and with their plain stores evict-first too (nefs:
# -DCPK_NC_EF=1 -DCPK_ST_EF=1), beside the default build. One call:
# each variant's FUSED --test-only and FUSED smoke set under memcheck
# (nefs under racecheck too), then def1 / nef / nefs / def2 on the cases
# the change reaches (fused_k's rows of 1024-32768 columns; the skew
# path's rows are in kernels/rowskew.cu, which the variants leave as
# built).
#   BIN=DIR VAR=DIR bash scripts/capture/ef-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ef-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
VT_TLIM=60 VT_LIM=45 vtools nef "$var/cuda_portfolio-nef" memcheck
VT_TLIM=60 VT_LIM=45 vtools nefs "$var/cuda_portfolio-nefs" memcheck racecheck
export ONE_BUDGET=${ONE_BUDGET:-0.3}
v=(nef "$var/cuda_portfolio-nef" nefs "$var/cuda_portfolio-nefs")
for c in "rmsnorm bf16 8192x8192" "rmsnorm fp16 8192x8192" \
  "rmsnorm bf16 16384x4096" "rmsnorm fp16 16384x4096" \
  "rmsnorm bf16 65536x1024" "rmsnorm bf16 2048x32768" \
  "rmsnorm fp32 2048x32768" "softmax bf16 8192x8192" \
  "softmax bf16 2048x32768" "softmax fp32 8192x8192" \
  "softmax_backward bf16 8192x8192" "rmsnorm_backward bf16 8192x8192" \
  "rmsnorm_backward fp32 8192x8192" "rmsnorm fp32 8192x8192"; do
  set -- $c
  bench_abc $1 $2 $3 "${v[@]}"
done
finish
exit 0
