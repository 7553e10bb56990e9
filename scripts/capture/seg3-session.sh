#!/usr/bin/env bash
# v17d (docs/PERFORMANCE.md): the segment path's count as one
# acquire-release atomic (hint-variants.sh, SOURCES=kernels/rowseg.cu,
# acqrel=-DCPK_SEG_ACQREL=1) against $pf, one lease: the variant's FUSED
# --test-only and its FUSED smoke set under memcheck and racecheck with
# every FUSED row_sum case through the path, then row_sum at 2^18 and 2^20
# in every dtype, the default / acqrel / the default, twice:
#   BIN=DIR VAR=DIR bash scripts/capture/seg3-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: seg3-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
VT_ENV=CPK_SEG_MIN=1 vtools acqrel "$var/cuda_portfolio-acqrel" memcheck racecheck
ONE_BUDGET=0.3
for pass in a b; do
  for sh in 256x262144 32x1048576; do
    for dt in fp32 bf16 fp16; do
      BA_SUF=$pass bench_abc row_sum $dt $sh acqrel \
        "$var/cuda_portfolio-acqrel"
    done
  done
done
finish
exit 0
