#!/usr/bin/env bash
# v32c (docs/PERFORMANCE.md): v32b loads rmsnorm's w with the row's loads
# where it won and leaves the 16-bit 8192-wide rows alone (there its
# registers cost a block an SM). The variants load w into registers just
# before the row's reduction, after its statistics loop, where the row's
# registers are live but the loop's temporaries are not: wl5
# (-DCPK_FUSED_RMS_WLATE=1) in the configurations v32b leaves out, wl
# (=2) in every register-only one instead of v32b's early loads. One
# call: each variant's resource usage, its rmsnorm --test-only, its FUSED
# smoke set under memcheck, rmsnorm at edge shapes of the moved
# configurations under memcheck and racecheck, then def1 / wl5 / wl / def2
# on rmsnorm at 1024-8192 columns (16-bit 8192 three times).
#   BIN=DIR VAR=DIR bash scripts/capture/v32c-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v32c-session.sh OUTDIR [BUDGET_S]}
budget=${2:-270}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
for v in wl5 wl; do
  vb="$var/cuda_portfolio-$v"
  run cuobjdump-$v.txt 60 cuobjdump --dump-resource-usage "$vb"
  run test-only-$v.txt 60 "$vb" --test-only --op rmsnorm
  run memcheck-smoke-$v.txt 45 compute-sanitizer --tool memcheck \
    --error-exitcode 9 "$vb" --alloc exact --smoke --variant fused
  SAN_TAG=$v sanshapes "$vb" rmsnorm 300x2000 5x8192 3x16384 64x1024
done
export ONE_BUDGET=0.4
w5="$var/cuda_portfolio-wl5"
wl="$var/cuda_portfolio-wl"
for dt in bf16 fp16; do
  bench_abc rmsnorm $dt 8192x8192 wl5 "$w5" wl "$wl"
  BA_SUF=b bench_abc rmsnorm $dt 8192x8192 wl5 "$w5" wl "$wl"
done
for dt in bf16 fp16; do
  for sh in 65536x1024 16384x4096; do
    bench_abc rmsnorm $dt $sh wl5 "$w5" wl "$wl"
  done
done
bench_abc rmsnorm fp32 8192x8192 wl5 "$w5" wl "$wl"
bench_abc rmsnorm fp32 65536x1024 wl5 "$w5" wl "$wl"
for dt in bf16 fp16; do
  BA_SUF=c bench_abc rmsnorm $dt 8192x8192 wl5 "$w5" wl "$wl"
done
finish
exit 0
