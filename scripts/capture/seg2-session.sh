#!/usr/bin/env bash
# After v17b (docs/PERFORMANCE.md): the segment path's segment size and
# block. Experiment builds that differ from $pf only in kernels/rowseg.cu's
# macros (hint-variants.sh, SOURCES=kernels/rowseg.cu): u4 (CPK_SEG_U=4:
# 16 KiB segments), u16 (16: 64 KiB), nt512 (CPK_SEG_NT=512: 512 threads
# of 8 loads, 64 KiB). One lease: each variant's FUSED --test-only with
# every FUSED row_sum case through the path, then row_sum at 2^20 and 2^18
# in every dtype, the default / u4 / u16 / nt512 / the default:
#   BIN=DIR VAR=DIR bash scripts/capture/seg2-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: seg2-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
for v in u4 u16 nt512; do
  VT_ENV=CPK_SEG_MIN=1 vtools "$v" "$var/cuda_portfolio-$v"
done
ONE_BUDGET=0.3
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp32 fp16; do
    bench_abc row_sum $dt $sh u4 "$var/cuda_portfolio-u4" \
      u16 "$var/cuda_portfolio-u16" nt512 "$var/cuda_portfolio-nt512"
  done
done
finish
exit 0
