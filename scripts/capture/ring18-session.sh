#!/usr/bin/env bash
# v26c (docs/PERFORMANCE.md): a stats warp a block polls and merges each
# B's row partials ahead of the groups (the variants, hint-variants.sh
# with SOURCES=kernels/rowskew.cu: sw=-DCPK_RING_SW=1,
# swf2="-DCPK_RING_SW=1 -DCPK_RING_FOLD=2", f2=-DCPK_RING_FOLD=2, v25b
# alone), against the default. One call:
#  - sw's and swf2's FUSED cases through the ring wherever it takes them
#    (CPK_SKEW_MIN=1 CPK_SKEW_RING=2) under --test-only, their FUSED
#    smoke sets under memcheck, racecheck, initcheck and synccheck, and
#    swf2's whole --test-only (the build as a default would run it);
#  - softmax and rmsnorm at 2^20 and 2^18, every dtype (the ring):
#    def1 / sw / swf2 / f2 / def2;
#  - softmax_backward there, sw with the ring taking it (CPK_SKEW_RING=1)
#    against the default's skew_k: def1 / sw / def2;
#  - Nsight Compute's duration of sw's ring_k on v26b's four cases (as
#    ring17: clocks not locked, caches flushed before each launch);
#  - the copy at the byte counts of those rows (2^25 and 2^26 elements of
#    16 bits and fp32; not standard shapes, so without --bench).
#   BIN=DIR VAR=DIR bash scripts/capture/ring18-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: ring18-session.sh OUTDIR [BUDGET_S]}
budget=${2:-420}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
for v in sw swf2; do
  VT_TLIM=60 VT_LIM=60 VT_ENV="CPK_SKEW_MIN=1 CPK_SKEW_RING=2" \
    vtools ring-$v "$var/cuda_portfolio-$v" memcheck racecheck initcheck \
    synccheck
done
run test-only-all-swf2.txt 90 "$var/cuda_portfolio-swf2" --test-only
ONE_BUDGET=0.25
for sh in 32x1048576 256x262144; do
  for dt in bf16 fp16 fp32; do
    for op in softmax rmsnorm; do
      bench_abc $op $dt $sh sw "$var/cuda_portfolio-sw" \
        swf2 "$var/cuda_portfolio-swf2" f2 "$var/cuda_portfolio-f2"
    done
    BA_ENV=CPK_SKEW_RING=1 bench_abc softmax_backward $dt $sh \
      sw "$var/cuda_portfolio-sw"
  done
done
for c in "softmax bf16 32x1048576" "rmsnorm bf16 32x1048576" \
  "softmax bf16 256x262144" "softmax fp32 32x1048576"; do
  set -- $c
  run "ncu-sw-$1-$2-$3.txt" 40 ncu --clock-control none \
    -k regex:ring_k --launch-count 3 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis "$var/cuda_portfolio-sw" --op $1 \
    --dtype $2 --shape $3
done
for dt in bf16 fp32; do
  for n in 1x33554432 1x67108864; do
    run copy-copy-$dt-$n.txt 20 "$pf" --op copy --dtype $dt --shape $n \
      --budget 0.25 --json "$out/copy-copy-$dt-$n.json"
  done
done
gpu_csv gpu-after-bench.csv
finish
exit 0
