#!/usr/bin/env bash
# v25f's probe (docs/PERFORMANCE.md): each block's timeline on the ring
# (the variant cuda_portfolio-tl: hint-variants.sh with
# SOURCES=kernels/rowskew.cu tl=-DCPK_RING_TL=1; thread 0 of each consumer
# group prints %globaltimer at entry, after the prologue, after each of
# its first 17 iterations and at its end, in every launch). One call:
# softmax bf16 and fp32 and rmsnorm bf16 at 2^20 and 2^18 columns, one
# warm-up launch and 3 cold samples each (--warmup 0.000001), the default build
# beside it with the same settings for the samples' event times.
#   BIN=DIR VAR=DIR bash scripts/capture/ring13-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring13-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
tv=$var/cuda_portfolio-tl
gpu_csv gpu-before.csv
S="--warmup 0.000001 --min-samples 3 --max-samples 3"
for c in "softmax bf16 32x1048576" "softmax bf16 256x262144" \
  "softmax fp32 32x1048576" "rmsnorm bf16 32x1048576" \
  "rmsnorm bf16 256x262144"; do
  set -- $c
  run tl-$1-$2-$3.txt 30 "$tv" --bench --op $1 --dtype $2 --shape $3 $S \
    --json "$out/tl-$1-$2-$3.json"
  run def-$1-$2-$3.txt 30 "$pf" --bench --op $1 --dtype $2 --shape $3 $S \
    --json "$out/def-$1-$2-$3.json"
done
finish
exit 0
