#!/usr/bin/env bash
# v24c (docs/PERFORMANCE.md): rmsnorm's w on the ring by a bulk copy of its
# own, waited for by B only, against v23's loads before the first step
# (the variant cuda_portfolio-wsync: hint-variants.sh
# wsync=-DCPK_RING_WSYNC=1). One call:
#  - rmsnorm's FUSED cases through the ring where it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only, the FUSED smoke
#    set the same way under memcheck, racecheck, initcheck, synccheck;
#  - rmsnorm at 2^20 and 2^18, every dtype (fp32 2^20 through the ring with
#    CPK_SKEW_RING=1), default / wsync / default;
#  - rmsnorm's --test-only (the build's plan); the prof build on rmsnorm
#    bf16 2^20.
#   BIN=DIR VAR=DIR bash scripts/capture/ring7-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring7-session.sh OUTDIR [BUDGET_S]}
budget=${2:-150}
. "$(dirname "$0")/batch-lib.sh"
wv=$var/cuda_portfolio-wsync
gpu_csv gpu-before.csv
VT_TLIM=40 VT_LIM=40 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
  vtools ringall "$pf" memcheck racecheck initcheck synccheck
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    bench_one def1 "$pf" rmsnorm $dt $sh CPK_SKEW_RING=1
    bench_one wsync "$wv" rmsnorm $dt $sh CPK_SKEW_RING=1
    bench_one def2 "$pf" rmsnorm $dt $sh CPK_SKEW_RING=1
  done
done
run test-only-rmsnorm.txt 30 "$pf" --test-only --op rmsnorm
# (the prof build left out of this call: the carry limit)
finish
exit 0
