#!/usr/bin/env bash
# The wide path with twice the loads in flight per thread (v9c,
# -DCPK_WIDE_U=16: 16 16-byte loads per one-input thread and step, 8 per
# input for two, kernels built for twice the registers) against the v9
# final binary, on the GPU machine (docs/PERFORMANCE.md):
#   SOURCES=kernels/rowfused.cu hint-variants.sh .carry/var u16=-DCPK_WIDE_U=16
#   bash scripts/capture/wide-u16-session.sh OUTDIR [BUDGET_S]
# The variant's FUSED verification cases and smoke set under memcheck, its
# resource usage, then the wide path's cases default / variant / default.
set -u
out=${1:?usage: wide-u16-session.sh OUTDIR [BUDGET_S]}
budget=${2:-200}
. "$(dirname "$0")/batch-lib.sh"
vb=$var/cuda_portfolio-u16
gpu_csv gpu-before.csv
run test-only-u16.txt 40 "$vb" --test-only --variant fused
run memcheck-u16.txt 30 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$vb" --alloc exact --smoke --variant fused
run resource-usage-u16.txt 20 cuobjdump --dump-resource-usage "$vb"
one() { # NAME BINARY OP DTYPE SHAPE
  [ "$(left)" -gt 8 ] || return 0
  run "$1-$3-$4-$5.txt" 20 "$2" --bench --op "$3" --dtype "$4" --shape "$5" \
    --budget 0.5 --json "$out/$1-$3-$4-$5.json"
}
for c in "softmax fp32 256x262144" "rmsnorm fp32 256x262144" \
  "rmsnorm bf16 256x262144" "rmsnorm_backward fp32 2048x32768" \
  "softmax bf16 32x1048576" "row_sum fp32 256x262144" \
  "row_sum bf16 256x262144" "row_sum fp32 32x1048576" \
  "row_sum bf16 32x1048576"; do
  one def1 "$pf" $c
  one u16 "$vb" $c
  one def2 "$pf" $c
done
finish
exit 0
