#!/usr/bin/env bash
# v8 of the FUSED row ops (kernels/rowfused.cu: softmax's 16-bit exps kept
# as scaled fp16 in their slots, the cluster reduction's partials read in
# parallel, rmsnorm's w slots in shared memory, rmsnorm's plain stores up to
# 4 shared-memory slots, softmax's 128-thread 4-slot configuration for 7
# blocks per SM) against the same sources with every v8 macro off (v7, the
# previous final binary's kernels), and each change on its own off, on the
# GPU machine (the sources of that run: commit 04b23c0; the next commit
# removed CPK_FUSED_SM_EXP16 and CPK_VISIT_UNROLL, which took nothing off):
#   hint-variants.sh .carry/var old="-DCPK_FUSED_SM_MB7=0 -DCPK_FUSED_SM_EXP16=0
#     -DCPK_FUSED_CLRED_PAR=0 -DCPK_FUSED_RMS_WSM=0 -DCPK_FUSED_RMS_PLAIN_NS=0"
#     noexp16=-DCPK_FUSED_SM_EXP16=0 noclred=-DCPK_FUSED_CLRED_PAR=0
#     nowsm=-DCPK_FUSED_RMS_WSM=0
#   (old also with -DCPK_VISIT_UNROLL=1 and SOURCES="kernels/rowfused.cu
#   kernels/row_sum.cu kernels/softmax.cu kernels/softmax_bwd.cu
#   kernels/rmsnorm.cu"; nounroll=-DCPK_VISIT_UNROLL=1 with those four)
#   PART=1|2 bash scripts/capture/v8-session.sh OUTDIR [BUDGET_S]
# Part 1 (new, old, noexp16 carried): checks (resources, --test-only of
# the five row ops, memcheck / racecheck / synccheck on their smoke sets),
# then the five row ops' benchmark sets new, old, new, and noexp16 on
# softmax. Part 2 (the other variants carried; the device tool's 64 MiB
# limit): each one-change-off variant between two runs of the default on
# the selections it touches.
set -u
out=${1:?usage: PART=1|2 v8-session.sh OUTDIR [BUDGET_S]}
budget=${2:-400}
. "$(dirname "$0")/batch-lib.sh"
ops="row_sum softmax softmax_backward rmsnorm rmsnorm_backward"
one() { # variant op [shape]
  local v=$1 op=$2 sh=${3:-} tag=$1-$2${3:+-$3}
  run "bench-$tag.txt" 60 "$var/cuda_portfolio-$v" --bench --op $op \
    ${sh:+--shape $sh} --json "$out/bench-$tag.json"
}
gpu_csv gpu-before.csv
if [ "${PART:-1}" = 1 ]; then
  run resource-usage-new.txt 20 cuobjdump --dump-resource-usage "$pf"
  run resource-usage-old.txt 20 cuobjdump --dump-resource-usage "$var/cuda_portfolio-old"
  for op in $ops; do
    run "test-only-$op.txt" 40 "$pf" --test-only --op $op
  done
  for tool in memcheck racecheck synccheck; do
    for op in $ops; do
      run "sanitize-$tool-$op.txt" 40 compute-sanitizer --tool $tool \
        --error-exitcode 9 "$pf" --alloc exact --smoke --op $op
    done
  done
  for op in softmax rmsnorm row_sum softmax_backward rmsnorm_backward; do
    abc 60 new old "$var/cuda_portfolio-old" $op
  done
  one noexp16 softmax
else
  # the default binary stays from part 1 (same lease); each variant is
  # timed between two runs of it on the same selection
  var2() { # variant op [shape]
    local tag=$2${3:+-$3}
    run "bench-new-$tag-a.txt" 60 "$pf" --bench --op $2 ${3:+--shape $3} \
      --json "$out/bench-new-$tag-a.json"
    one "$@"
    run "bench-new-$tag-b.txt" 60 "$pf" --bench --op $2 ${3:+--shape $3} \
      --json "$out/bench-new-$tag-b.json"
  }
  run resource-usage-nowsm.txt 20 cuobjdump --dump-resource-usage "$var/cuda_portfolio-nowsm"
  var2 nowsm rmsnorm
  var2 noclred softmax
  var2 noclred softmax_backward
  var2 nounroll row_sum 32x1048576
  var2 nounroll rmsnorm 32x1048576
  var2 nounroll softmax_backward 32x1048576
  var2 nounroll rmsnorm_backward 256x262144
  var2 nounroll rmsnorm_backward 32x1048576
fi
finish
exit 0
