#!/usr/bin/env bash
# The fourth session's experiments on the GPU machine (docs/PERFORMANCE.md,
# v5): with the default binary in BIN (default .carry/bin) and the variants
# of scripts/capture/hint-variants.sh beside it (cuda_portfolio-fwd:
# -DCPK_SPLIT_REVERSE=0, a switch of the v5a sources that reversed the SPLIT
# second kernels, since removed; cuda_portfolio-nc: -DCPK_FUSED_LD_CS=0).
# As run on 2026-11-29: results/h200/bounds/v5-2026-11-29T1623/.
#   bash scripts/capture/flush-split-session.sh OUTDIR [BUDGET_S]
# 1. the kernels' self-test and --test-only with the default binary;
# 2. the SPLIT order side by side: the 2^20-wide rows of softmax,
#    softmax_backward, rmsnorm and rmsnorm_backward (--variant split),
#    default (second kernel reversed) then fwd, then default again;
# 3. row_sum's load hint side by side: default (.cs) then nc (.nc);
# 4. the two flushes back to back, every row op and copy, default binary:
#    --flush write then --flush read (each file records its flush and the
#    launch floor).
set -u
out=${1:?usage: flush-split-session.sh OUTDIR [BUDGET_S]}
budget=${2:-480}
. "$(dirname "$0")/batch-lib.sh"
gpu_csv gpu-before.csv
run selftest.txt 60 "$bin/cpk_selftest"
run test-only.txt 120 "$pf" --test-only
for t in run_one_case run_read_flush; do
  mkdir -p build/linux/tests/bench/tmp-test_bench_gpu
  run "test_bench_gpu-$t.txt" 30 "$bin/test_bench_gpu" $t
done
for v in default fwd default2; do
  exe=$pf
  [ "$v" = fwd ] && exe=$pf-fwd
  for op in softmax softmax_backward rmsnorm rmsnorm_backward; do
    run "split-$v-$op.txt" 40 "$exe" --op $op --variant split \
      --shape 32x1048576 --json "$out/split-$v-$op.json"
  done
done
run rowsum-default.txt 40 "$pf" --bench --op row_sum --json "$out/rowsum-default.json"
run rowsum-nc.txt 40 "$pf-nc" --bench --op row_sum --json "$out/rowsum-nc.json"
for f in write read; do
  for op in copy row_sum softmax softmax_backward rmsnorm rmsnorm_backward; do
    run "flush-$f-$op.txt" $(( $(left) > 60 ? 60 : $(left) - 5 )) "$pf" \
      --bench --op $op --flush $f --json "$out/flush-$f-$op.json"
  done
done
finish
exit 0
