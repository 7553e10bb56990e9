#!/usr/bin/env bash
# v28b (docs/PERFORMANCE.md): copy kernels of one tile a block and a grid
# of every tile (no loop; the variant np, hint-variants.sh with
# SOURCES=kernels/elementwise.cu np=-DCPK_COPY_EXP=1 on the v28b patch,
# picked by CPK_COPY_V: 6, 256 threads x 8 vectors; 7, 128 x 1; 8, 128 x 4;
# 9, 256 x 2) beside v28a's copy_k and cudaMemcpyAsync (the peer). One
# call: each one's copy --test-only, then the copy at 2^25 and 2^26 16-bit
# and 2^28 fp32 elements: def1 / 6 / 7 / 8 / 9 / def2.
#   BIN=DIR VAR=DIR bash scripts/capture/np-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: np-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
nb="$var/cuda_portfolio-np"
for v in 6 7 8 9; do
  run test-only-np-v$v.txt 30 env CPK_COPY_V=$v "$nb" --test-only --op copy
done
for c in "bf16 33554432" "bf16 67108864" "fp32 268435456"; do
  set -- $c
  flat_one def1 "$pf" copy $1 $2
  for v in 6 7 8 9; do flat_one v$v "$nb" copy $1 $2 CPK_COPY_V=$v; done
  flat_one def2 "$pf" copy $1 $2
done
gpu_csv gpu-after-bench.csv
finish
exit 0
