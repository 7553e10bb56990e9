#!/usr/bin/env bash
# v49 (docs/PERFORMANCE.md, "v49"): what a stream of each row-op case's
# bytes reaches under the same protocol, beside the cases, in one lease.
# The row ops move R x W elements once in (row_sum, softmax, rmsnorm) or
# twice in (the backward ops) and once out (all but row_sum): the copy
# (one read, one write) and add (two reads, one write) of the same number
# of elements are those streams without the rows' dependencies. Every
# standard row-op shape is 2^26 elements but 32x1048576 (2^25), so:
#   bench     the row ops' benchmark set (every dtype and shape, the plan
#             chooser's pick), one run per op, under the write flush (the
#             default) and the read flush
#   streams   copy and add of 2^25 and 2^26 elements as one 1xN row, every
#             dtype, under each flush, timed without --bench (the copy
#             with its peer, cudaMemcpyAsync of the same bytes, sampled in
#             alternation)
# Each run measures its own ceilings (copy, read, launch floor), and every
# fraction is against its own run's copy ceiling.
#   BIN=DIR bash scripts/capture/v49-session.sh OUTDIR [BUDGET_S]
set -u
out=${1:?usage: v49-session.sh OUTDIR [BUDGET_S]}
budget=${2:-330}
. "$(dirname "$0")/batch-lib.sh"
export KERNEL_REQUIRE_GPU=1
gpu_csv gpu-before.csv
stream() { # FLUSH OP DTYPE N: batch-lib's flat_one under FLUSH, as
  # s-FLUSH-OP-DTYPE-N (until 2026-12-04 this ran the command itself,
  # without flat_one's CPK_NONE=1; the v49 folder's runs are that form)
  [ "$(left)" -gt 10 ] || return 0
  FLAT_BUDGET=0.5 FLAT_ARGS="--flush $1" flat_one "s-$1" "$pf" "$2" "$3" "$4"
}
for fl in write read; do
  for op in row_sum softmax softmax_backward rmsnorm rmsnorm_backward; do
    [ "$(left)" -gt 120 ] || break
    run "bench-$fl-$op.txt" 60 "$pf" --bench --op "$op" --flush "$fl" \
      --budget 0.5 --json "$out/bench-$fl-$op.json"
  done
  for dt in fp32 fp16 bf16; do
    for n in 33554432 67108864; do
      stream "$fl" copy "$dt" "$n"
      stream "$fl" add "$dt" "$n"
    done
  done
done
finish
exit 0
