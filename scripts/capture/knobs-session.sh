#!/usr/bin/env bash
# The wide rows' run-time knobs again on the final run's kernels (the
# build $BIN, no variant binary; docs/PERFORMANCE.md, "v39"): each case
# def / knob / def with the knob in the environment (the results' JSON
# records it):
#   ring1  CPK_SKEW_RING=1: softmax_backward on v23's ring (with v26c's
#          stats warp since) instead of the skew path, at 256x262144 and
#          16-bit 32x1048576 (fp32 2^20 has 256 segments: no ring);
#   rl3    CPK_RING_L=3: the ring's lag 3 steps instead of 2, softmax and
#          rmsnorm at 2^18 and 2^20;
#   sl1    CPK_SKEW_L=1: one more step of lag on the skew path,
#          softmax_backward and rmsnorm_backward at 256x262144.
# Then ring1's checks: softmax_backward's FUSED --test-only and smoke set
# under memcheck and racecheck with CPK_SKEW_RING=2 (the ring or an error,
# no fallback), and two wide shapes under memcheck. The last line says
# whether every check passed.
#   BIN=DIR bash scripts/capture/knobs-session.sh OUTDIR [BUDGET_S]
# (run on 2026-12-03 13:02 UTC: bounds/knobs-2026-12-03T1302, with OUTDIR
# /tmp/knobs and BUDGET_S 420)
set -u
out=${1:?usage: knobs-session.sh OUTDIR [BUDGET_S]}
budget=${2:-300}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
ONE_RESERVE=60
env_grid ring1 CPK_SKEW_RING=1 softmax_backward "bf16 fp16 fp32" 256x262144
env_grid ring1 CPK_SKEW_RING=1 softmax_backward "bf16 fp16" 32x1048576
env_grid rl3 CPK_RING_L=3 "softmax rmsnorm" "bf16 fp16 fp32" "256x262144 32x1048576"
env_grid sl1 CPK_SKEW_L=1 "softmax_backward rmsnorm_backward" "bf16 fp16 fp32" 256x262144
VT_ENV=CPK_SKEW_RING=2 VT_TLIM=60 VT_LIM=60 VT_SEL="--op softmax_backward" \
  vtools ring1 "$pf" memcheck racecheck
for sh in 3x262144 2x1048576; do
  run "memcheck-ring1-$sh.txt" 60 env CPK_SKEW_RING=2 compute-sanitizer \
    --tool memcheck --error-exitcode 9 "$pf" --alloc exact \
    --op softmax_backward --shape $sh
done
finish_checks knobs
exit 0
