#!/usr/bin/env bash
# v37a's second form (docs/PERFORMANCE.md): the build ($BIN, the head's
# kernels) beside the variant tail ($VAR/cuda_portfolio-tail,
# -DCPK_DW_TAIL=1 with dw_tail counting blocks in by one atomicAdd on a
# count the workspace keeps at zero between launches; the first form's
# CAS on an epoch-tagged word cost 0.25-0.6 us a block in v37-session.sh's
# call). Checks first, only what the variant changes (rmsnorm_backward's
# fused_k and wide_k): its FUSED rmsnorm_backward --test-only and
# smoke set under memcheck, racecheck and synccheck, rmsnorm_backward
# at six shapes under memcheck and racecheck, dw and dx bit for bit against
# the build's (--seed, --dump, cmp); then rmsnorm_backward's benchmark set
# def / tail / def. The last line says whether every check passed.
#   BIN=DIR VAR=DIR bash scripts/capture/v37b-session.sh OUTDIR [BUDGET_S]
# (run on 2026-12-03 11:14 UTC: bounds/v37b-2026-12-03T1114, with
# OUTDIR /tmp/v37b and BUDGET_S 300; the variant: SOURCES=kernels/rowfused.cu
# bash scripts/capture/hint-variants.sh DIR tail=-DCPK_DW_TAIL=1)
set -u
out=${1:?usage: v37b-session.sh OUTDIR [BUDGET_S]}
budget=${2:-240}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
tv=$var/cuda_portfolio-tail
run cuobjdump-tail.txt 30 cuobjdump --dump-resource-usage "$tv"
VT_TLIM=60 VT_LIM=60 VT_SEL="--op rmsnorm_backward" vtools tail "$tv" \
  memcheck racecheck synccheck
SAN_TAG=tail sanshapes "$tv" rmsnorm_backward 5x100 300x1024 300x8192 37x8000 7x20000 150x32768
bitscmp tail "$tv" rmsnorm_backward "5x100 300x1024 300x4096 300x8192 3x8192 37x8000 7x20000 150x32768 3x65536 4000x1024"
abc 60 def tail "$tv" rmsnorm_backward
finish_checks v37b
exit 0
