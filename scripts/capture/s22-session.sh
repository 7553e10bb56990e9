#!/usr/bin/env bash
# Twenty-second session (docs/PERFORMANCE.md): the twenty-first session's
# variant again (rmsnorm_backward's fused_k prefetching the group's next
# row wherever it does not stage; the patch is with the evidence), now
# asked of the card the issue is about. Its H100 A/B was level: the
# question left is whether the H200, which moves 1.42x the bytes a second
# through the same 132 SMs, needs the loads in flight that the H100 did
# not. On any card first the variant's checks (FUSED --test-only and
# smoke set of rmsnorm_backward under memcheck and racecheck, --dump
# outputs against the build's, its cuobjdump resource table). Then on an
# H200: the pending H200 batch (the write-flush benchmark set, the GPU
# ctest but the entries run elsewhere, --test-only --op matmul) and old,
# new, old, new --bench of rmsnorm_backward at 65536x1024, 16384x4096,
# 8192x8192 and 2048x32768. On any other card: Nsight Compute's warp
# states of old and new at bf16 65536x1024 and 8192x8192 (where the
# prefetch's loads went, since the time did not move). The last line says
# whether every check passed. With ONLY_H200=1 a card other than an H200
# runs nothing after its line (the counters came back from call 3).
#   BIN=DIR VAR=DIR [ONLY_H200=1] [AB_FIRST=1] [AB_ONLY=1] bash scripts/capture/s22-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: s22-session.sh OUTDIR [BUDGET_S]}
budget=${2:-540}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
if [ "${ONLY_H200:-0}" = 1 ] && ! grep -q H200 "$out/gpu-before.csv"; then
  finish
  exit 0
fi
n=$var/cuda_portfolio-new
VT_SEL="--op rmsnorm_backward" vtools new "$n" memcheck racecheck
bitscmp new "$n" rmsnorm_backward "300x1024 77x4096 33x8192 5000x1024"
run res-new.txt 30 cuobjdump --dump-resource-usage "$n"
ab() {
  bench_shapes "$1" "$2" rmsnorm_backward "65536x1024 16384x4096 8192x8192 2048x32768"
}
if grep -q H200 "$out/gpu-before.csv"; then
  # AB_FIRST=1: the A/B, the matmul set and the GPU ctest first, and the
  # benchmark set only where 220 s of the budget are left for it (call 9)
  if [ "${AB_FIRST:-0}" != 1 ]; then
    run bench-all.txt "$(upto 200)" "$pf" --bench --json "$out/bench-all.json"
  fi
  # AB_ONLY=1: the variant's checks and the A/B alone (call 11's budget)
  if [ "${AB_ONLY:-0}" != 1 ]; then
    run ctest-gpu.txt "$(upto 40)" ctest --test-dir build/linux/tests -L gpu \
      -E 'gpu\.(test_only|kernels_selftest)' --output-on-failure
    run test-only-matmul.txt "$(upto 60)" "$pf" --test-only --op matmul
  fi
  for p in 1 2; do
    ab old$p "$pf"
    ab new$p "$n"
  done
  if [ "${AB_FIRST:-0}" = 1 ] && [ "$(left)" -ge 220 ]; then
    run bench-all.txt "$(upto 200)" "$pf" --bench --json "$out/bench-all.json"
  fi
else
  for sh in 65536x1024 8192x8192; do
    NCU_K=fused_k ncu_stalls "ncu-old-$sh" "$pf" rmsnorm_backward bf16 $sh
    NCU_K=fused_k ncu_stalls "ncu-new-$sh" "$n" rmsnorm_backward bf16 $sh
  done
fi
finish_checks s22
exit 0
