#!/usr/bin/env bash
# What a timed launch costs beside its bytes (docs/PERFORMANCE.md, v28a):
# the copy (copy_k since v28a) and its peer, cudaMemcpyAsync, at 2^25 and
# 2^26 16-bit and 2^28 fp32 elements under each cache mode (write flush,
# the default; read flush; hot), and Nsight Compute's view of copy_k at
# 2^26 16-bit (clocks not locked). One call, the carried build:
#   bash scripts/capture/cpflush-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: cpflush-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
BIN=${BIN:-build/linux/bin}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
for c in "bf16 33554432" "bf16 67108864" "fp32 268435456"; do
  set -- $c
  for m in write read hot; do
    case $m in hot) mo=--hot ;; *) mo="--flush $m" ;; esac
    run copy-$m-$1-$2.txt 30 "$pf" --op copy --dtype $1 --shape 1x$2 $mo \
      --budget 0.3 --json "$out/copy-$m-$1-$2.json"
  done
done
run ncu-copy.txt 60 ncu --clock-control none --section SpeedOfLight \
  --section MemoryWorkloadAnalysis -k regex:copy_k --launch-count 3 "$pf" \
  --op copy --dtype bf16 --shape 1x67108864
gpu_csv gpu-after-bench.csv
finish
exit 0
