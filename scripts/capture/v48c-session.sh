#!/usr/bin/env bash
# v48c (docs/PERFORMANCE.md), after v48b: two fixed costs placed.
#   ringtl  v25f's ring timeline again, now with v26c's stats warp (the
#           variant tl: -DCPK_RING_TL=1, kernels/rowskew.cu; its readings
#           are the consumer groups' only): thread 0 of each group prints
#           %globaltimer at entry, after the prologue and after each of
#           its first 17 iterations; softmax bf16 and fp32 at 256x262144,
#           softmax bf16 and rmsnorm bf16 at 32x1048576, rmsnorm fp32 at
#           256x262144, three samples each, and the build's own time for
#           the same cases beside them (tl's printf runs after its last
#           reading, so its event times are not the build's)
#   rbdw    Nsight Compute's duration of rmsnorm_backward's two kernels
#           (the row kernel and the dw kernel), bf16, at 1x1024 (v48b:
#           13.9 us timed, 11 over the launch floor) and at the benchmark's
#           65536x1024, 16384x4096 and 8192x8192, the caches left as they
#           are (the dw kernel reads partials the row kernel has just
#           written), one verification run each
#   BIN=DIR VAR=DIR bash scripts/capture/v48c-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v48c-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
tl=$var/cuda_portfolio-tl
for c in softmax:bf16:256x262144 softmax:fp32:256x262144 \
  softmax:bf16:32x1048576 rmsnorm:bf16:32x1048576 rmsnorm:fp32:256x262144; do
  IFS=: read -r op dt sh <<<"$c"
  [ "$(left)" -gt 90 ] || continue
  for b in tl:$tl def:$pf; do
    n=${b%%:*} x=${b#*:}
    run "ringtl-$n-$op-$dt-$sh.txt" 40 "$x" --bench --op $op --dtype $dt \
      --shape $sh --min-samples 3 --max-samples 3 --budget 0.1 \
      --json "$out/ringtl-$n-$op-$dt-$sh.json"
  done
done
for sh in 1x1024 65536x1024 16384x4096 8192x8192; do
  [ "$(left)" -gt 20 ] || continue
  run "rbdw-ncu-bf16-$sh.txt" 60 ncu --clock-control none --cache-control none \
    -k "regex:fused_k|fused_dw_k" -c 2 --section SpeedOfLight \
    "$pf" --op rmsnorm_backward --variant fused --dtype bf16 --shape $sh
done
finish
exit 0
